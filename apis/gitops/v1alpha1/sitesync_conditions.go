package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GetConditions returns the SiteSync's status conditions.
func (o *SiteSync) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the SiteSync's status conditions.
func (o *SiteSync) SetConditions(c []metav1.Condition) { o.Status.Conditions = c }
