package guestbook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// appliedRecord is what the controller last applied to one object: the hash of the apply configuration and
// the resourceVersion the apiserver answered with.
type appliedRecord struct {
	hash, resourceVersion string
}

// applyIfChanged server-side applies ac, unless this process applied the same content before and the cached
// object (read into cached) still has the resourceVersion that apply returned: then nobody has changed it
// since, and the apply would be a no-op. This keeps a reconcile triggered by a pod event (a failover) from
// waiting on three no-op applies; any change by anyone else bumps the resourceVersion and is reverted by
// the next apply. A restart forgets the records and applies once.
func (r *Reconciler) applyIfChanged(ctx context.Context, cached client.Object, key types.NamespacedName, ac runtime.ApplyConfiguration) error {
	desired, err := json.Marshal(ac)
	if err != nil {
		return fmt.Errorf("encoding %T: %w", ac, err)
	}
	sum := sha256.Sum256(desired)
	hash := hex.EncodeToString(sum[:])
	recordKey := fmt.Sprintf("%T %s", cached, key)
	if v, ok := r.applied.Load(recordKey); ok {
		rec := v.(appliedRecord)
		if rec.hash == hash && r.Get(ctx, key, cached) == nil && cached.GetResourceVersion() == rec.resourceVersion {
			return nil
		}
	}
	if err := r.Apply(ctx, ac, fieldOwner, client.ForceOwnership); err != nil {
		return err
	}
	// Apply decoded the apiserver's answer into ac; read its resourceVersion back.
	answer, err := json.Marshal(ac)
	if err != nil {
		return fmt.Errorf("encoding applied %T: %w", ac, err)
	}
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(answer, &meta); err != nil {
		return fmt.Errorf("decoding applied %T: %w", ac, err)
	}
	r.applied.Store(recordKey, appliedRecord{hash: hash, resourceVersion: meta.Metadata.ResourceVersion})
	return nil
}

// forgetApplied drops the apply records of a Guestbook's objects (the Deployment <name>, the Services <name>
// and <name>-standby) once it is gone.
func (r *Reconciler) forgetApplied(key types.NamespacedName) {
	for _, name := range []string{key.Name, standbyServiceName(&webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: key.Name}})} {
		suffix := " " + types.NamespacedName{Namespace: key.Namespace, Name: name}.String()
		r.applied.Range(func(k, _ any) bool {
			if strings.HasSuffix(k.(string), suffix) {
				r.applied.Delete(k)
			}
			return true
		})
	}
}
