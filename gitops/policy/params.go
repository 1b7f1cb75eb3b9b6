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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// paramStore holds the parameter objects a binding's paramRef can name: the objects of the policy paths that
// are not policies or bindings, and the site's own output, by kind.
type paramStore struct {
	fromPolicies []*unstructured.Unstructured
	site         []*unstructured.Unstructured
	siteObjects  *siteObjects
	byKind       map[schema.GroupVersionKind]*paramInformer
}

// paramInformer is a read-only informer over the parameters of one kind, synced from the start: what the
// admission plugin reads parameters from.
type paramInformer struct {
	cache.SharedIndexInformer // not used: only HasSynced is called
	lister                    cache.GenericLister
	scope                     meta.RESTScope
}

var _ informers.GenericInformer = &paramInformer{}

func (p *paramInformer) Informer() cache.SharedIndexInformer { return p }
func (p *paramInformer) Lister() cache.GenericLister         { return p.lister }
func (p *paramInformer) HasSynced() bool                     { return true }

// informer is the informer of the parameters of kind apiVersion/kind, made on first use.
func (s *paramStore) informer(apiVersion, kind string) (*paramInformer, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("paramKind apiVersion %q: %w", apiVersion, err)
	}
	gvk := gv.WithKind(kind)
	if inf, ok := s.byKind[gvk]; ok {
		return inf, nil
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, list := range [][]*unstructured.Unstructured{s.fromPolicies, s.site} {
		for _, u := range list {
			if u.GroupVersionKind() == gvk {
				if err := idx.Add(u); err != nil {
					return nil, fmt.Errorf("indexing parameter %s: %w", objects.ID(u), err)
				}
			}
		}
	}
	scope := meta.RESTScopeNamespace
	if clusterScoped(gvk.GroupKind()) || s.siteObjects.cluster[gvk.GroupKind()] {
		scope = meta.RESTScopeRoot
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	inf := &paramInformer{lister: cache.NewGenericLister(idx, gvr.GroupResource()), scope: scope}
	s.byKind[gvk] = inf
	return inf, nil
}
