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

package policy

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// metadataNameLabel is the label kube-apiserver sets on every Namespace to its name.
const metadataNameLabel = corev1.LabelMetadataName

// siteObjects is what the requests of one site's output are made of: the Namespaces the namespace selectors
// read, and the plural resource names of the kinds.
type siteObjects struct {
	namespaces corelisters.NamespaceLister
	renderedNS map[string]bool
	plurals    map[schema.GroupKind]string // of the CRDs in the output
	cluster    map[schema.GroupKind]bool   // the cluster-scoped kinds of the CRDs in the output
}

// newSiteObjects indexes the Namespaces of objs, with the name label kube-apiserver adds, and a stand-in with
// only the name for every other namespace an object is in.
func newSiteObjects(objs []*unstructured.Unstructured) *siteObjects {
	s := &siteObjects{renderedNS: map[string]bool{}, plurals: map[schema.GroupKind]string{},
		cluster: map[schema.GroupKind]bool{}}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, u := range objs {
		switch u.GroupVersionKind().GroupKind() {
		case schema.GroupKind{Kind: "Namespace"}:
			ns := &corev1.Namespace{}
			if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ns) == nil {
				s.renderedNS[ns.Name] = true
				_ = idx.Add(withNameLabel(ns))
			}
		case schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:
			group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
			plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
			if kind != "" && plural != "" {
				s.plurals[schema.GroupKind{Group: group, Kind: kind}] = plural
			}
			if scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope"); scope == "Cluster" {
				s.cluster[schema.GroupKind{Group: group, Kind: kind}] = true
			}
		}
	}
	for _, u := range objs {
		if ns := u.GetNamespace(); ns != "" && !s.renderedNS[ns] && !isNamespace(u) {
			if _, exists, _ := idx.GetByKey(ns); !exists {
				_ = idx.Add(withNameLabel(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
			}
		}
	}
	s.namespaces = corelisters.NewNamespaceLister(idx)
	return s
}

// namespaceUnknown says whether the labels of obj's namespace are unknown: it is in a namespace the output
// does not hold, or it is namespaced (not a cluster-scoped built-in kind, nor of a cluster-scoped CRD of the
// output) and names no namespace.
func (s *siteObjects) namespaceUnknown(obj *unstructured.Unstructured) bool {
	if ns := obj.GetNamespace(); ns != "" {
		return !isNamespace(obj) && !s.renderedNS[ns]
	}
	gk := obj.GroupVersionKind().GroupKind()
	return !clusterScoped(gk) && !s.cluster[gk]
}

// attributes is the admission request that creates obj.
func (s *siteObjects) attributes(obj *unstructured.Unstructured) admission.Attributes {
	gvk := obj.GroupVersionKind()
	plural, ok := s.plurals[gvk.GroupKind()]
	if !ok {
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		plural = gvr.Resource
	}
	ns := obj.GetNamespace()
	if isNamespace(obj) {
		ns = ""
	}
	return admission.NewAttributesRecord(obj, nil, gvk, ns, obj.GetName(), gvk.GroupVersion().WithResource(plural),
		"", admission.Create, &metav1.CreateOptions{}, false,
		&user.DefaultInfo{Name: User, Groups: []string{user.AllAuthenticated}})
}

func isNamespace(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().GroupKind() == schema.GroupKind{Kind: "Namespace"}
}

// withNameLabel is ns with the kubernetes.io/metadata.name label kube-apiserver sets.
func withNameLabel(ns *corev1.Namespace) *corev1.Namespace {
	labels := map[string]string{}
	for k, v := range ns.Labels {
		labels[k] = v
	}
	labels[metadataNameLabel] = ns.Name
	ns.Labels = labels
	return ns
}

// clusterScoped says whether gk is a cluster-scoped built-in kind.
func clusterScoped(gk schema.GroupKind) bool {
	var kinds []string
	switch gk.Group {
	case "":
		kinds = []string{"Namespace", "Node", "PersistentVolume", "ComponentStatus"}
	case "rbac.authorization.k8s.io":
		kinds = []string{"ClusterRole", "ClusterRoleBinding"}
	case "apiextensions.k8s.io":
		kinds = []string{"CustomResourceDefinition"}
	case "apiregistration.k8s.io":
		kinds = []string{"APIService"}
	case "storage.k8s.io":
		kinds = []string{"StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"}
	case "scheduling.k8s.io":
		kinds = []string{"PriorityClass"}
	case "node.k8s.io":
		kinds = []string{"RuntimeClass"}
	case "networking.k8s.io":
		kinds = []string{"IngressClass", "IPAddress", "ServiceCIDR"}
	case "certificates.k8s.io":
		kinds = []string{"CertificateSigningRequest", "ClusterTrustBundle"}
	case "flowcontrol.apiserver.k8s.io":
		kinds = []string{"FlowSchema", "PriorityLevelConfiguration"}
	case "resource.k8s.io":
		kinds = []string{"DeviceClass"}
	case "admissionregistration.k8s.io":
		kinds = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
			"MutatingAdmissionPolicyBinding"}
	}
	return slices.Contains(kinds, gk.Kind)
}
