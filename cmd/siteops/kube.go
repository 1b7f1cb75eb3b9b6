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

package main

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/apis"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// errNoKubeconfig is the error of the commands that talk to a cluster when neither --kubeconfig, $KUBECONFIG
// nor ~/.kube/config gives one.
var errNoKubeconfig = errors.New("no kubeconfig: set KUBECONFIG or --kubeconfig")

// connect returns a client for the cluster of the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
// and the namespace to use: namespace, else the kubeconfig context's, or "" (every namespace) with all.
func connect(kubeconfig, namespace string, all bool) (client.Client, string, error) {
	cfg, ns, err := loadKubeconfig(kubeconfig, namespace, all)
	if err != nil {
		return nil, "", err
	}
	scheme, err := apis.NewScheme()
	if err != nil {
		return nil, "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to the cluster: %w", err)
	}
	return c, ns, nil
}

// loadKubeconfig returns the REST config of the kubeconfig file and the namespace to use, as connect says.
func loadKubeconfig(kubeconfig, namespace string, all bool) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if clientcmd.IsEmptyConfig(err) { // client-go's message would point at the deprecated KUBERNETES_MASTER
		return nil, "", errNoKubeconfig
	}
	if err != nil {
		return nil, "", fmt.Errorf("loading kubeconfig: %w", err)
	}
	ns := namespace
	if ns == "" && !all {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", fmt.Errorf("reading the kubeconfig namespace: %w", err)
		}
	}
	return cfg, ns, nil
}

// readSiteSyncs connects with the kubeconfig and reads the SiteSync name, or every SiteSync of the namespace
// (of every namespace with all).
func readSiteSyncs(ctx context.Context, kubeconfig, namespace string, all bool,
	name string) ([]gitopsv1alpha1.SiteSync, error) {
	c, ns, err := connect(kubeconfig, namespace, all)
	if err != nil {
		return nil, err
	}
	if name != "" {
		obj := &gitopsv1alpha1.SiteSync{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
			return nil, fmt.Errorf("getting SiteSync %s/%s: %w", ns, name, err)
		}
		return []gitopsv1alpha1.SiteSync{*obj}, nil
	}
	list := &gitopsv1alpha1.SiteSyncList{}
	if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing SiteSyncs: %w", err)
	}
	return list.Items, nil
}
