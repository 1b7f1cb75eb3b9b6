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

package sitesync

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// applicationGVK is Argo CD's Application. siteops reads it as unstructured data into argoApplication, a
// struct of only the fields it uses: the argo-cd module is not imported (its dependency tree is huge).
func applicationGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}
}

// Argo CD's refresh annotation: "normal" asks it to compare the Application with Git now, not at its next
// poll; Argo CD removes the annotation once done.
const (
	refreshAnnotation = "argocd.argoproj.io/refresh"
	refreshNormal     = "normal"
)

// clusterCacheError is in the ComparisonError Argo CD sets when it cannot list the destination cluster to
// fill its cache (of live objects, or of API versions for rendering): the site's cluster is down or refuses
// Argo CD's credentials.
const clusterCacheError = "error synchronizing cache state"

// managerRolloutName is the Rollout of siteops' own manager on every site (base/install).
const managerRolloutName = "siteops-manager"

// argoApplication is the part of an Argo CD Application siteops reads.
type argoApplication struct {
	Metadata struct {
		Namespace   string            `json:"namespace"`
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	// Operation is set while a sync is requested and not yet picked up.
	Operation map[string]any `json:"operation,omitempty"`
	Spec      struct {
		SyncPolicy *struct {
			Automated map[string]any `json:"automated,omitempty"`
		} `json:"syncPolicy,omitempty"`
	} `json:"spec"`
	Status struct {
		Sync struct {
			Status   string `json:"status"`
			Revision string `json:"revision"`
		} `json:"sync"`
		Health argoHealth `json:"health"`
		// ReconciledAt is when Argo CD's application controller last compared the Application with Git.
		ReconciledAt   string `json:"reconciledAt,omitempty"`
		OperationState *struct {
			Phase      string `json:"phase"`
			Message    string `json:"message"`
			SyncResult *struct {
				Revision string `json:"revision"`
			} `json:"syncResult,omitempty"`
		} `json:"operationState,omitempty"`
		Conditions []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"conditions,omitempty"`
		Resources []struct {
			Group  string      `json:"group"`
			Kind   string      `json:"kind"`
			Name   string      `json:"name"`
			Health *argoHealth `json:"health,omitempty"`
		} `json:"resources,omitempty"`
	} `json:"status"`
}

type argoHealth struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// appView is what siteops reports of one Application: comparable, so a watch passes only real changes.
type appView struct {
	Key, Site                    string
	SyncStatus, Revision, Health string
	Operating                    bool // a sync is requested or running
	Unreachable                  bool // Argo CD cannot read the live state of the site's cluster
	Settling                     bool // automated sync will act: see settling
	Message                      string
	ManagerRollout               string
	// RefreshAsked: the Application still carries Argo CD's refresh annotation (Argo CD removes it once done).
	RefreshAsked bool
	// ReconciledAt is when Argo CD last compared the Application with Git, as Argo CD wrote it.
	ReconciledAt string
}

// viewOf reads the fields siteops reports from an Application.
func viewOf(u *unstructured.Unstructured) (appView, error) {
	var a argoApplication
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &a); err != nil {
		return appView{}, fmt.Errorf("reading Application %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	st := a.Status
	v := appView{
		Key: a.Metadata.Namespace + "/" + a.Metadata.Name, Site: a.Metadata.Labels[gitopsv1alpha1.LabelSite],
		SyncStatus: st.Sync.Status, Revision: st.Sync.Revision, Health: st.Health.Status,
		Operating:    a.Operation != nil || (st.OperationState != nil && st.OperationState.Phase == "Running"),
		RefreshAsked: a.Metadata.Annotations[refreshAnnotation] != "", ReconciledAt: st.ReconciledAt,
	}
	for _, r := range st.Resources {
		if r.Group == "argoproj.io" && r.Kind == "Rollout" && r.Name == managerRolloutName && r.Health != nil {
			v.ManagerRollout = r.Health.Status
		}
	}
	v.Settling = settling(a)
	for _, c := range st.Conditions {
		if c.Type == "ComparisonError" && strings.Contains(c.Message, clusterCacheError) {
			v.Unreachable = true
		}
	}
	v.Message = messageOf(a)
	return v, nil
}

// settling: Argo CD syncs the site by itself (automated sync) and its last sync of the compared revision did
// not fail, so OutOfSync or Missing is a moment between a new commit and the sync that follows.
func settling(a argoApplication) bool {
	return a.Spec.SyncPolicy != nil && a.Spec.SyncPolicy.Automated != nil && !syncFailed(a)
}

// syncFailed reports whether Argo CD's last sync failed at the revision it compares now (or at an unknown one):
// automated sync does not retry it by itself.
func syncFailed(a argoApplication) bool {
	op := a.Status.OperationState
	if op == nil || (op.Phase != "Failed" && op.Phase != "Error") {
		return false
	}
	return op.SyncResult == nil || op.SyncResult.Revision == "" || op.SyncResult.Revision == a.Status.Sync.Revision
}

// messageOf is Argo CD's most telling message: the Application's health message, else the first unhealthy
// resource's, else the first suspended resource's (a paused Rollout waiting for promote), else a failed
// sync's, else a condition's (a comparison or sync error), else the last sync's.
func messageOf(a argoApplication) string {
	st := a.Status
	if st.Health.Message != "" {
		return st.Health.Message
	}
	for _, telling := range []func(string) bool{
		func(h string) bool { return h == "Degraded" || h == "Missing" },
		func(h string) bool { return h == "Suspended" },
	} {
		for _, r := range st.Resources {
			if r.Health != nil && r.Health.Message != "" && telling(r.Health.Status) {
				return fmt.Sprintf("%s %s: %s", r.Kind, r.Name, r.Health.Message)
			}
		}
	}
	op := st.OperationState
	if op != nil && (op.Phase == "Failed" || op.Phase == "Error") && op.Message != "" {
		return op.Message
	}
	for _, c := range st.Conditions {
		if c.Message != "" {
			return c.Type + ": " + c.Message
		}
	}
	if op != nil {
		return op.Message
	}
	return ""
}

// listApplications reads the Applications of obj's sites, by site; a site with several keeps the first by
// name.
func listApplications(ctx context.Context, c client.Reader, obj *gitopsv1alpha1.SiteSync) (map[string]appView, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(applicationGVK().GroupVersion().WithKind(applicationGVK().Kind + "List"))
	if err := c.List(ctx, list, client.InNamespace(obj.DeliveryNamespace()),
		client.MatchingLabels{gitopsv1alpha1.LabelSiteSync: obj.Name}); err != nil {
		return nil, fmt.Errorf("listing the Argo CD Applications in %s: %w", obj.DeliveryNamespace(), err)
	}
	apps := map[string]appView{}
	for i := range list.Items {
		v, err := viewOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		if prev, ok := apps[v.Site]; v.Site == "" || (ok && prev.Key < v.Key) {
			continue
		}
		apps[v.Site] = v
	}
	return apps, nil
}
