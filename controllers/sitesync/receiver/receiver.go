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

// Package receiver is the Git push receiver of the manager: Git hosts POST their push webhooks to
// /hook/<namespace>/<sitesync>, and a verified push of the ref a SiteSync follows triggers that SiteSync at
// once, instead of at its next interval.
package receiver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

const (
	// PathPrefix is the route of the push receiver: POST /hook/<namespace>/<sitesync-name>.
	PathPrefix = "/hook/"
	// DefaultMaxBodyBytes bounds a webhook body; larger requests get 413.
	DefaultMaxBodyBytes = 1 << 20
	// receiverSecretKey is the key of the receiver Secret holding the webhook token.
	receiverSecretKey = "token"
)

// Handler is the push receiver's http.Handler: it verifies a Git host's push webhook against the
// SiteSync's receiver Secret and triggers that SiteSync at once by setting its requestedAt annotation, which
// also survives a manager restart. Responses: 202 triggered, 200 ignored (ping, other event, other ref),
// 400 bad payload or no delivery id, 401 missing/bad signature, 404 unknown SiteSync or receiver not enabled,
// 405 not POST, 409 replayed delivery id, 413 body too large. Neither the token nor the signature is logged.
type Handler struct {
	client  client.Client
	secrets client.Reader
	clock   clock.PassiveClock
	log     logr.Logger
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes when 0).
	MaxBodyBytes int64
	seen         *deliveryCache
}

// NewHandler builds a Handler that reads SiteSyncs and patches their annotation with c and reads the
// receiver Secrets with secrets (an uncached reader, e.g. mgr.GetAPIReader()).
func NewHandler(c client.Client, secrets client.Reader, clk clock.PassiveClock, log logr.Logger) *Handler {
	return &Handler{client: c, secrets: secrets, clock: clk, log: log, seen: newDeliveryCache(defaultSeenDeliveries)}
}

// receiverResponse is a status code and a short reason for the sender.
type receiverResponse struct {
	code int
	msg  string
}

func (rc *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	res := rc.handle(req)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(res.code)
	_, _ = io.WriteString(w, res.msg+"\n")
}

// handle runs the receiver's checks in order; the first failing one answers.
func (rc *Handler) handle(req *http.Request) receiverResponse {
	if req.Method != http.MethodPost {
		return receiverResponse{http.StatusMethodNotAllowed, "POST only"}
	}
	key, ok := parseHookPath(req.URL.Path)
	if !ok {
		return receiverResponse{http.StatusNotFound, "want /hook/<namespace>/<name>"}
	}
	body, res := rc.readBody(req)
	if res != nil {
		return *res
	}
	ctx := req.Context()
	log := rc.log.WithValues("sitesync", key.String())
	obj := &gitopsv1alpha1.SiteSync{}
	if err := rc.client.Get(ctx, key, obj); err != nil || obj.Spec.Receiver == nil {
		if err != nil && !apierrors.IsNotFound(err) {
			log.Error(err, "reading SiteSync for a webhook")
			return receiverResponse{http.StatusServiceUnavailable, "try again"}
		}
		return receiverResponse{http.StatusNotFound, "no SiteSync with a receiver here"}
	}
	token, err := rc.token(ctx, key.Namespace, obj.Spec.Receiver.SecretRef.Name)
	if err != nil {
		log.Info("webhook rejected: receiver secret unusable", "reason", err.Error())
		return receiverResponse{http.StatusUnauthorized, errBadSignature.Error()}
	}
	prov, err := verifySignature(req.Header, body, token)
	if err != nil {
		log.Info("webhook rejected: missing or invalid signature")
		return receiverResponse{http.StatusUnauthorized, errBadSignature.Error()}
	}
	return rc.dispatch(ctx, log, obj, prov, req.Header, body)
}

// dispatch handles a verified delivery: replay check, event filter, payload, trigger.
func (rc *Handler) dispatch(ctx context.Context, log logr.Logger, obj *gitopsv1alpha1.SiteSync, prov provider,
	h http.Header, body []byte) receiverResponse {
	id := deliveryID(prov, h)
	if id == "" {
		return receiverResponse{http.StatusBadRequest, "missing delivery id header"}
	}
	replayKey := string(obj.UID) + "/" + id
	if !rc.seen.reserve(replayKey) {
		log.Info("webhook rejected: replayed delivery", "delivery", id)
		return receiverResponse{http.StatusConflict, "delivery already handled"}
	}
	switch ev := strings.ToLower(eventType(prov, h)); ev {
	case "", "push", "push hook", "tag push hook", "tag_push", "create":
	case "ping":
		return receiverResponse{http.StatusOK, "pong"}
	default:
		return receiverResponse{http.StatusOK, "ignored event " + truncate(ev, 64)}
	}
	push, err := ParsePushEvent(body)
	if err != nil {
		rc.seen.release(replayKey)
		return receiverResponse{http.StatusBadRequest, err.Error()}
	}
	if !push.Affects(obj.Spec.Source.Ref) {
		return receiverResponse{http.StatusOK, "ignored push to " + truncate(push.Ref, 128)}
	}
	at, err := rc.trigger(ctx, obj)
	if err != nil {
		rc.seen.release(replayKey)
		log.Error(err, "triggering SiteSync from a webhook", "delivery", id)
		return receiverResponse{http.StatusServiceUnavailable, "try again"}
	}
	log.Info("webhook triggered a sync", "provider", string(prov), "delivery", id, "ref", push.Ref,
		"after", push.After, "requestedAt", at)
	return receiverResponse{http.StatusAccepted, "sync requested"}
}

// readBody reads at most MaxBodyBytes; a larger body answers 413.
func (rc *Handler) readBody(req *http.Request) ([]byte, *receiverResponse) {
	limit := rc.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	tooLarge := &receiverResponse{http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", limit)}
	if req.ContentLength > limit {
		return nil, tooLarge
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(req.Body, limit+1))
	if err != nil {
		return nil, &receiverResponse{http.StatusBadRequest, "reading body failed"}
	}
	if n > limit {
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// token reads the webhook token of the receiver Secret; surrounding whitespace (a trailing newline from a
// file) is ignored.
func (rc *Handler) token(ctx context.Context, namespace, name string) ([]byte, error) {
	secret := &corev1.Secret{}
	// Read without a logger in the context: client-go prints whole response bodies, the token included, at
	// verbosity 8 and above.
	quiet := logr.NewContext(ctx, logr.Discard())
	if err := rc.secrets.Get(quiet, types.NamespacedName{Namespace: namespace, Name: name}, secret); err != nil {
		return nil, fmt.Errorf("reading receiver secret %q: %w", name, err)
	}
	token := bytes.TrimSpace(secret.Data[receiverSecretKey])
	if len(token) == 0 {
		return nil, fmt.Errorf("receiver secret %q has no key %q", name, receiverSecretKey)
	}
	return token, nil
}

// trigger sets the requestedAt annotation to now, which makes the controller sync at once.
func (rc *Handler) trigger(ctx context.Context, obj *gitopsv1alpha1.SiteSync) (string, error) {
	at := rc.clock.Now().UTC().Format(time.RFC3339Nano)
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{gitopsv1alpha1.RequestedAtAnnotation: at}},
	})
	if err != nil {
		return "", fmt.Errorf("encoding trigger patch: %w", err)
	}
	if err := rc.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", fmt.Errorf("annotating SiteSync %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	return at, nil
}

// parseHookPath reads /hook/<namespace>/<name>.
func parseHookPath(path string) (types.NamespacedName, bool) {
	rest, ok := strings.CutPrefix(path, PathPrefix)
	if !ok {
		return types.NamespacedName{}, false
	}
	ns, name, ok := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: ns, Name: name}, true
}

// truncate cuts s to n bytes, marking the cut: a response never echoes much of what the sender sent.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
