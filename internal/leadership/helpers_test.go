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

package leadership

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	rolloutsclient "github.com/argoproj/argo-rollouts/pkg/client/clientset/versioned"
	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// eventually bounds every wait of these tests on a loaded 2-core machine; it is not a timing assertion.
const eventually = 60 * time.Second

// leaseName is the Lease every contender of a test shares.
const leaseName = "siteops-test"

// t0 is where every fake clock starts.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// never are durations no test reaches on its fake clock: with them, whatever moves leadership is a watch
// event, not a timer.
var never = timing3{lease: 3 * time.Hour, renew: 2 * time.Hour, retry: time.Hour}

// short are durations a test steps its fake clock through.
var short = timing3{lease: 15 * time.Second, renew: 10 * time.Second, retry: 2 * time.Second}

type timing3 struct{ lease, renew, retry time.Duration }

// ledger records, in order, each contender's "started leading" and "stopped leading" log lines, every moment
// two contenders led at once, and which contenders made their first decision.
type ledger struct {
	mu      sync.Mutex
	events  []string
	leading map[string]bool
	overlap []string
	decided map[string]bool
	waited  map[string]bool
}

func newLedger() *ledger {
	return &ledger{leading: map[string]bool{}, decided: map[string]bool{}, waited: map[string]bool{}}
}

// Waited reports whether who has logged a decision to wait for reason.
func (l *ledger) Waited(who, reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waited[who+": "+reason]
}

// Decided reports whether who has made its first decision, on the Lease as its watch delivered it.
func (l *ledger) Decided(who string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.decided[who]
}

func (l *ledger) record(who, msg string, kv ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch msg {
	case "first decision made":
		l.decided[who] = true
		l.waited[who+": "+reason(kv)] = true
	case "waiting":
		l.waited[who+": "+reason(kv)] = true
	case "started leading":
		for other, on := range l.leading {
			if on && other != who {
				l.overlap = append(l.overlap, fmt.Sprintf("%s started while %s led", who, other))
			}
		}
		l.leading[who] = true
		l.events = append(l.events, who+" started")
	case "stopped leading":
		l.leading[who] = false
		l.events = append(l.events, who+" stopped")
	case "stopped writing":
		l.events = append(l.events, who+" stopped writing")
	case "writing again":
		l.events = append(l.events, who+" writing again")
	}
}

// Events returns the recorded events in order.
func (l *ledger) Events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string{}, l.events...)
}

// Overlaps returns every moment two contenders led at once.
func (l *ledger) Overlaps() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string{}, l.overlap...)
}

// reason is the value of "reason" in a log line's key-value pairs.
func reason(kv []any) string {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "reason" {
			s, _ := kv[i+1].(string)
			return s
		}
	}
	return ""
}

// ledgerSink is a logr sink that feeds a ledger.
type ledgerSink struct {
	who string
	l   *ledger
}

func (s ledgerSink) Init(logr.RuntimeInfo)             {}
func (s ledgerSink) Enabled(int) bool                  { return true }
func (s ledgerSink) Info(_ int, msg string, kv ...any) { s.l.record(s.who, msg, kv...) }
func (s ledgerSink) Error(error, string, ...any)       {}
func (s ledgerSink) WithValues(...any) logr.LogSink    { return s }
func (s ledgerSink) WithName(string) logr.LogSink      { return s }

var _ logr.LogSink = ledgerSink{}

// contender is one manager's elector, started by startContender.
type contender struct {
	name    string
	fence   *Fence
	elector *Elector
	stop    context.CancelFunc
	done    chan struct{}
	err     error
}

// contenderOpts are how a test starts a contender.
type contenderOpts struct {
	ns, activeService, hash string
	// pod is the contender's pod (Config.PodName); "" outside a pod.
	pod    string
	timing timing3
	clock  *clocktesting.FakeClock
	ledger *ledger
	// config reaches the apiserver; nil means the test environment's.
	config *rest.Config
	// rollouts: the contender watches the Rollouts of ns (Config.Rollouts).
	rollouts bool
}

// startContender starts an elector named name and stops it when the test ends.
func startContender(t *testing.T, name string, o contenderOpts) *contender {
	t.Helper()
	cfg := o.config
	if cfg == nil {
		cfg = env.Config
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rollouts rest.Interface
	if o.rollouts {
		ro, err := rolloutsclient.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rollouts = ro.ArgoprojV1alpha1().RESTClient()
	}
	fence := &Fence{}
	e, err := New(Config{Client: c, Namespace: o.ns, Name: leaseName, Identity: name, PodName: o.pod,
		ActiveService: o.activeService, Rollouts: rollouts,
		PodTemplateHash: o.hash, LeaseDuration: o.timing.lease, RenewDeadline: o.timing.renew, RetryPeriod: o.timing.retry,
		ReleaseOnCancel: true, Fence: fence, Clock: o.clock, Log: logr.New(ledgerSink{who: name, l: o.ledger})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ct := &contender{name: name, fence: fence, elector: e, stop: cancel, done: make(chan struct{})}
	go func() { ct.err = e.Start(ctx); close(ct.done) }()
	t.Cleanup(ct.Stop)
	return ct
}

// Stop stops the contender and waits for its elector to return.
func (c *contender) Stop() {
	c.stop()
	<-c.done
}

// activeService creates the Service name in ns whose selector names hash, as Argo Rollouts keeps it.
func activeService(t *testing.T, ns, name, hash string) {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "manager", PodTemplateHashLabel: hash},
			Ports: []corev1.ServicePort{{Port: 443}}}}
	NewWithT(t).Expect(k8s.Create(context.Background(), svc)).To(Succeed())
}

// colourPod creates pod name of colour hash in ns, with its Ready condition ready, as a manager pod of the
// Rollout that the kubelet reports.
func colourPod(t *testing.T, ns, name, hash string, ready bool) {
	t.Helper()
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{"app": "manager", PodTemplateHashLabel: hash}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "manager"}}}}
	g.Expect(k8s.Create(context.Background(), pod)).To(Succeed())
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	g.Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
}

// promote moves the active Service's selector to hash, as Argo Rollouts does at promote, abort or undo.
func promote(t *testing.T, ns, name, hash string) {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	patch := client.RawPatch("application/merge-patch+json",
		fmt.Appendf(nil, `{"spec":{"selector":{%q:%q}}}`, PodTemplateHashLabel, hash))
	NewWithT(t).Expect(k8s.Patch(context.Background(), svc, patch)).To(Succeed())
}

// holder returns the Lease's holder ("" when released or absent).
func holder(_ Gomega, ns string) string {
	l, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// cutProxy forwards TCP connections to the apiserver until it is cut: then every connection is closed, and each
// new one is accepted and closed at once, as when the apiserver is down or unreachable, until Restore.
type cutProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	cut    bool
	turned int // connections closed unanswered while cut
	conns  map[net.Conn]struct{}
}

// newCutProxy starts a proxy to the test apiserver and returns it with a config that reaches the apiserver
// through it.
func newCutProxy(t *testing.T) (*cutProxy, *rest.Config) {
	t.Helper()
	target := env.Config.Host
	if u, err := urlHost(target); err == nil {
		target = u
	}
	p := &cutProxy{target: target, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	go p.serve(ln)
	t.Cleanup(func() { _ = ln.Close(); p.Cut() })
	cfg := rest.CopyConfig(env.Config)
	cfg.Host = "https://" + p.addr
	return p, cfg
}

// serve accepts on ln until it is closed.
func (p *cutProxy) serve(ln net.Listener) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		if cut {
			p.turned++
		}
		p.mu.Unlock()
		if cut {
			_ = in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
		go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
	}
}

// Cut closes every connection and turns new ones away.
func (p *cutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = map[net.Conn]struct{}{}
}

// TurnedAway is how many connections the proxy closed unanswered while cut.
func (p *cutProxy) TurnedAway() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.turned
}

// Restore forwards new connections again.
func (p *cutProxy) Restore(*testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// urlHost returns the host:port of an apiserver URL.
func urlHost(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}
