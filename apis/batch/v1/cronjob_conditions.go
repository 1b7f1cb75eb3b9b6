package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GetConditions returns the CronJob's status conditions.
func (o *CronJob) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the CronJob's status conditions.
func (o *CronJob) SetConditions(c []metav1.Condition) { o.Status.Conditions = c }
