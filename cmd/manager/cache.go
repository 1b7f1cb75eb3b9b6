package main

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// cacheOptions are the manager's informer cache options. Every cached object drops its managedFields, as
// kube-controller-manager's informers do: no controller reads them (writes are merge patches and creates),
// and on a Job or CronJob they are often a third of the object (P7: 5,000 CronJobs and 20,000 Jobs).
func cacheOptions() cache.Options {
	return cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
}
