/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package standby

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyConfiguration is what the recorder reads of an apply configuration: the object it names.
type applyConfiguration interface {
	GetName() *string
	GetNamespace() *string
	GetKind() *string
	GetAPIVersion() *string
}

// applied is the object an apply names, as the client read it before the apply (nil when it did not exist),
// and when the apply was sent: it is recorded once it returns, stamped with that time like every other write.
type applied struct {
	kind, namespace, name string
	before                map[string]any
	resourceVersion       string
	sent                  time.Time
}

// sendTime is the time to stamp a write sent now with: the report's clock, zero without a report.
func (c *WriteRecorder) sendTime() time.Time {
	if c.Report == nil {
		return time.Time{}
	}
	return c.Report.now()
}

// current reads the object obj names, to tell afterwards what the apply changed.
func (c *WriteRecorder) current(ctx context.Context, obj runtime.ApplyConfiguration) (*applied, error) {
	ac, ok := obj.(applyConfiguration)
	if !ok || ac.GetName() == nil || ac.GetKind() == nil || ac.GetAPIVersion() == nil {
		return nil, fmt.Errorf("apply configuration %T names no object", obj)
	}
	gv, err := schema.ParseGroupVersion(*ac.GetAPIVersion())
	if err != nil {
		return nil, fmt.Errorf("apply configuration %T: %w", obj, err)
	}
	a := &applied{kind: *ac.GetKind(), name: *ac.GetName()}
	if ns := ac.GetNamespace(); ns != nil {
		a.namespace = *ns
	}
	typed, err := c.Scheme().New(gv.WithKind(a.kind))
	if err != nil {
		return nil, fmt.Errorf("apply configuration of %s: %w", a.kind, err)
	}
	cur, ok := typed.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", a.kind)
	}
	switch err := c.Get(ctx, client.ObjectKey{Namespace: a.namespace, Name: a.name}, cur); {
	case apierrors.IsNotFound(err):
		return a, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s %s/%s before applying it: %w", a.kind, a.namespace, a.name, err)
	}
	a.resourceVersion = cur.GetResourceVersion()
	if a.before, err = comparableFields(cur); err != nil {
		return nil, err
	}
	return a, nil
}

// recordApply records the apply of obj, whose response the client decoded into it, when it changed the
// object a describes before.
func (c *WriteRecorder) recordApply(obj runtime.ApplyConfiguration, a *applied) {
	after, err := comparableFields(obj)
	if err != nil {
		return
	}
	if a.before == nil {
		c.recordApplyOf(a, topLevelFields(after))
		return
	}
	var fields []string
	diffPaths("", a.before, after, 0, &fields)
	if len(fields) == 0 {
		return
	}
	sort.Strings(fields)
	c.recordApplyOf(a, fields)
}

// recordRefusedApply records an apply the apiserver refused, with the top-level fields it asked for, against
// the version of the object it was computed from.
func (c *WriteRecorder) recordRefusedApply(obj runtime.ApplyConfiguration, a *applied) {
	want, err := comparableFields(obj)
	if err != nil {
		return
	}
	c.recordApplyOf(a, topLevelFields(want))
}

// recordApplyOf adds the apply of the object a describes, setting fields, to the report.
func (c *WriteRecorder) recordApplyOf(a *applied, fields []string) {
	if c.Report == nil {
		return
	}
	c.Report.Record(Write{Verb: "apply", Kind: a.kind, Namespace: a.namespace, Name: a.name, Fields: fields,
		ResourceVersion: a.resourceVersion, DryRun: c.DryRun, Time: a.sent})
}

// topLevelFields lists m's keys as field paths (".spec"), sorted.
func topLevelFields(m map[string]any) []string {
	fields := make([]string, 0, len(m))
	for k := range m {
		fields = append(fields, "."+k)
	}
	sort.Strings(fields)
	return fields
}

// comparableFields is what an apply can change of obj: its spec and the other top-level fields, labels,
// annotations and owner references; not its status (other controllers write it) nor the metadata the
// apiserver keeps.
func comparableFields(obj any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decoding %T: %w", obj, err)
	}
	delete(m, "status")
	delete(m, "apiVersion")
	delete(m, "kind")
	if md, ok := m["metadata"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range []string{"labels", "annotations", "ownerReferences", "finalizers"} {
			if v, ok := md[k]; ok {
				kept[k] = v
			}
		}
		m["metadata"] = kept
	}
	return m, nil
}
