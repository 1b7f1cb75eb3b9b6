package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GetConditions returns the Guestbook's status conditions.
func (o *Guestbook) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the Guestbook's status conditions.
func (o *Guestbook) SetConditions(c []metav1.Condition) { o.Status.Conditions = c }
