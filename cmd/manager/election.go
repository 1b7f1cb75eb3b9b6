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
	"fmt"
	"os"
	"strings"

	rolloutsclient "github.com/argoproj/argo-rollouts/pkg/client/clientset/versioned"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/siteops/siteops/internal/leadership"
)

// Leader electors (--leader-elector).
const (
	// electorSiteops is internal/leadership: leadership follows the active Service and moves on watch events.
	electorSiteops = "siteops"
	// electorControllerRuntime is controller-runtime's leader election (client-go's elector): one leadership
	// per process, which exits when it loses the lease.
	electorControllerRuntime = "controller-runtime"
)

// inClusterNamespace is where a pod's ServiceAccount namespace is mounted.
const inClusterNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// election is how the manager is elected: the fence every leader-only write and reconcile asks, the runnable
// that opens and closes it, and whether controller-runtime's own leader election runs.
type election struct {
	fence             *leadership.Fence
	runnable          manager.Runnable
	controllerRuntime bool
}

// newElection sets up the election the flags ask for. Without --leader-elect the manager always leads.
func newElection(cfg *rest.Config, o options, clk clock.Clock, m *leadership.Metrics,
	log logr.Logger) (election, error) {
	fence := &leadership.Fence{}
	switch {
	case !o.leaderElect:
		fence.Grant()
		return election{fence: fence}, nil
	case o.leaderElector == electorControllerRuntime:
		if o.activeService != "" {
			return election{}, fmt.Errorf("--active-service needs --leader-elector=%s", electorSiteops)
		}
		return election{fence: fence, runnable: electedFence{fence}, controllerRuntime: true}, nil
	case o.leaderElector != electorSiteops:
		return election{}, fmt.Errorf("--leader-elector=%q: want %s or %s", o.leaderElector, electorSiteops,
			electorControllerRuntime)
	}
	ns, err := leaseNamespace(o.leaderElectionNS)
	if err != nil {
		return election{}, err
	}
	lcfg := rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	cs, err := kubernetes.NewForConfig(lcfg)
	if err != nil {
		return election{}, fmt.Errorf("creating the leader election client: %w", err)
	}
	var rollouts rest.Interface
	if o.activeService != "" {
		ro, err := rolloutsclient.NewForConfig(lcfg)
		if err != nil {
			return election{}, fmt.Errorf("creating the leader election's Rollouts client: %w", err)
		}
		rollouts = ro.ArgoprojV1alpha1().RESTClient()
	}
	pod, err := podName()
	if err != nil {
		return election{}, err
	}
	e, err := leadership.New(leadership.Config{Client: cs, Namespace: ns, Name: o.leaderElectionID,
		Identity: pod + "_" + string(uuid.NewUUID()), PodName: pod, ActiveService: o.activeService,
		PodTemplateHash: o.podTemplateHash, Rollouts: rollouts, LeaseDuration: o.leaseDuration,
		RenewDeadline: o.renewDeadline, RetryPeriod: o.retry, ReleaseOnCancel: o.releaseOnCancel, Fence: fence,
		Clock: clk, Log: log.WithName("leader-election"), Metrics: m})
	if err != nil {
		return election{}, err
	}
	return election{fence: fence, runnable: e}, nil
}

// leaseNamespace is --leader-election-namespace, else the pod's namespace.
func leaseNamespace(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	data, err := os.ReadFile(inClusterNamespace)
	if err != nil {
		return "", fmt.Errorf("leader election outside a pod needs --leader-election-namespace: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// podName is this manager's pod: $POD_NAME when set (the downward API's metadata.name, or a test harness running
// the pod's process on a host), else the host name, which is the pod name in a pod. The elector's identity is
// the pod name and a unique suffix, as controller-runtime's; a leader hands the Lease over by pod name.
func podName() (string, error) {
	if pod := os.Getenv("POD_NAME"); pod != "" {
		return pod, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("reading the host name for the leader election identity: %w", err)
	}
	return host, nil
}

// electedFence opens the fence once controller-runtime's leader election elects this manager; controller-runtime
// ends the process when it loses the lease.
type electedFence struct{ fence *leadership.Fence }

// NeedLeaderElection makes the manager start it once elected.
func (e electedFence) NeedLeaderElection() bool { return true }

// Start opens the fence until the manager stops.
func (e electedFence) Start(ctx context.Context) error {
	e.fence.Grant()
	<-ctx.Done()
	e.fence.Revoke()
	return nil
}
