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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels that tie an Argo CD Application to the site it delivers. The ApplicationSet in base/argocd sets both;
// siteops finds a site's Application by them, watches it and reports its sync status and health.
const (
	// LabelSiteSync names the SiteSync whose rendered branch the Application syncs.
	LabelSiteSync = "gitops.siteops.dev/sitesync"
	// LabelSite names the site (the folder of the rendered branch) the Application syncs.
	LabelSite = "gitops.siteops.dev/site"
)

// DefaultDeliveryNamespace is where siteops looks for the sites' Applications when spec.delivery.namespace is
// empty: the namespace Argo CD is usually installed in.
const DefaultDeliveryNamespace = "argocd"

// Delivery is how siteops finds the Argo CD Applications that deliver each site's rendered folder to its
// cluster. siteops reads them (sync status, health, synced revision) to report, per site, whether the
// rendered commit reached the site and is healthy there, and asks Argo CD to refresh them after each push.
type Delivery struct {
	// Namespace holds the Applications, labelled gitops.siteops.dev/sitesync=<this SiteSync's name> and
	// gitops.siteops.dev/site=<site>. Empty means "argocd".
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// DeliveryNamespace is the namespace of the SiteSync's Applications: spec.delivery.namespace or "argocd".
func (s *SiteSync) DeliveryNamespace() string {
	if s.Spec.Delivery != nil && s.Spec.Delivery.Namespace != "" {
		return s.Spec.Delivery.Namespace
	}
	return DefaultDeliveryNamespace
}

// DeliveryState is one word for where a site's rendered commit is on its way to the site's cluster.
type DeliveryState string

// Delivery states of a site, in status.sites[].delivery.
const (
	// DeliveryDelivered: Argo CD synced the site's rendered commit and the site is Healthy.
	DeliveryDelivered DeliveryState = "Delivered"
	// DeliveryPending: Argo CD has not yet synced the rendered commit, or is syncing it, or the site is
	// still Progressing towards Healthy.
	DeliveryPending DeliveryState = "Pending"
	// DeliveryOutOfSync: the site's cluster differs from the rendered commit and Argo CD is not syncing it
	// (sync failed, or automated sync is off). deliveryMessage has Argo CD's message.
	DeliveryOutOfSync DeliveryState = "OutOfSync"
	// DeliveryDegraded: the site's objects are Degraded (or Missing) on its cluster. deliveryMessage has
	// Argo CD's message.
	DeliveryDegraded DeliveryState = "Degraded"
	// DeliveryUnreachable: Argo CD cannot read the site's cluster (it is down, or its credentials or CA in the
	// cluster Secret are wrong), so nothing can be synced there. deliveryMessage has Argo CD's error.
	DeliveryUnreachable DeliveryState = "Unreachable"
	// DeliveryNoApplication: no Argo CD Application in spec.delivery.namespace carries the site's labels.
	// Register the site's cluster in Argo CD (the ApplicationSet in base/argocd then creates it).
	DeliveryNoApplication DeliveryState = "NoApplication"
	// DeliveryNotObserved: Argo CD's Application kind is not installed on this cluster (or was installed
	// after the manager started: restart it), so delivery is not observed.
	DeliveryNotObserved DeliveryState = "NotObserved"
)

// SiteDelivery is what Argo CD reports of one site's Application, beside the site's render state.
type SiteDelivery struct {
	// RenderedCommit is the commit of the rendered branch that last changed the site's folder.
	// +optional
	RenderedCommit string `json:"renderedCommit,omitempty"`
	// Delivery says in one word where the rendered commit is: Delivered, Pending, OutOfSync, Degraded,
	// Unreachable, NoApplication or NotObserved.
	// +optional
	Delivery DeliveryState `json:"delivery,omitempty"`
	// Application is the namespace/name of the site's Argo CD Application.
	// +optional
	Application string `json:"application,omitempty"`
	// SyncedRevision is the rendered-branch revision Argo CD last synced (or compared) for the site.
	// +optional
	SyncedRevision string `json:"syncedRevision,omitempty"`
	// SyncStatus is the Application's sync status: Synced, OutOfSync or Unknown.
	// +optional
	SyncStatus string `json:"syncStatus,omitempty"`
	// Health is the Application's health: Healthy, Progressing, Degraded, Suspended, Missing or Unknown.
	// +optional
	Health string `json:"health,omitempty"`
	// DeliveryMessage is Argo CD's message: the health message, or the last sync operation's or condition's.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	DeliveryMessage string `json:"deliveryMessage,omitempty"`
	// ManagerRollout is the health Argo CD reports for siteops' own manager Rollout on the site
	// (siteops-manager), e.g. Suspended while a preview waits for promotion; empty when it reports none.
	// +optional
	ManagerRollout string `json:"managerRollout,omitempty"`
	// Since is when the site entered its current delivery state, sync status and health.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}
