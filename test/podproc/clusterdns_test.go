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

package podproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

const dnsNamespace = "siteops-system"

// TestServeDNSLeadsAServiceNameToThePodProcess: a program on the host that resolves a Service's name through
// the harness' DNS (as the rollouts-controller does with SITEOPS_CLUSTER_DNS) and dials it at a Service port
// reaches the process behind the Ready pod the Service selects; the name with .cluster.local is the same
// address, and another Service has an address of its own.
func TestServeDNSLeadsAServiceNameToThePodProcess(t *testing.T) {
	echo := echoServer(t)
	port := freePort(t)
	h := dnsHarness(t, echo, port)
	r, dnsPort := serveDNS(t, h)

	addrs, err := r.LookupHost(t.Context(), "siteops-webhook-service-preview.siteops-system.svc")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("127.%d.%d.1", dnsPort>>8, dnsPort&0xff)
	if len(addrs) != 1 || addrs[0] != want {
		t.Fatalf("the preview Service resolves to %v, want [%s]", addrs, want)
	}
	full, err := r.LookupHost(t.Context(), "siteops-webhook-service-preview.siteops-system.svc.cluster.local.")
	if err != nil || len(full) != 1 || full[0] != want {
		t.Fatalf("its name with .cluster.local resolves to %v, %v; want [%s]", full, err, want)
	}
	other, err := r.LookupHost(t.Context(), "siteops-webhook-service.siteops-system.svc")
	if err != nil || len(other) != 1 || other[0] == want {
		t.Fatalf("the other Service resolves to %v, %v; want one address other than %s", other, err, want)
	}

	d := net.Dialer{Resolver: r}
	c, err := d.DialContext(t.Context(), "tcp", net.JoinHostPort("siteops-webhook-service-preview.siteops-system.svc",
		strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if _, err := fmt.Fprint(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || got != "ping\n" {
		t.Fatalf("through the Service's address: got %q, %v; want the pod process' echo", got, err)
	}
}

// TestServeDNSAnswersNXDOMAINForOtherNames: a name that is no Service of the namespace does not exist; a
// Service's name has an A record and nothing else.
func TestServeDNSAnswersNXDOMAINForOtherNames(t *testing.T) {
	h := dnsHarness(t, echoServer(t), freePort(t))
	n := h.ServiceNet(uint16(freePort(t)))
	for _, tc := range []struct {
		name    string
		typ     dnsmessage.Type
		rcode   dnsmessage.RCode
		answers int
	}{
		{"siteops-webhook-service-preview.siteops-system.svc.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, 1},
		{"siteops-webhook-service-preview.siteops-system.svc.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, 0},
		{"no-such-service.siteops-system.svc.", dnsmessage.TypeA, dnsmessage.RCodeNameError, 0},
		{"siteops-webhook-service-preview.default.svc.", dnsmessage.TypeA, dnsmessage.RCodeNameError, 0},
		{"siteops-webhook-service-preview.siteops-system.svc.example.com.", dnsmessage.TypeA,
			dnsmessage.RCodeNameError, 0},
		{"example.com.", dnsmessage.TypeA, dnsmessage.RCodeNameError, 0},
	} {
		reply := h.answerDNS(t.Context(), dnsQuery(t, tc.name, tc.typ), n)
		var p dnsmessage.Parser
		hdr, err := p.Start(reply)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.name, tc.typ, err)
		}
		if err := p.SkipAllQuestions(); err != nil {
			t.Fatal(err)
		}
		answers, err := p.AllAnswers()
		if err != nil {
			t.Fatal(err)
		}
		if hdr.ID != 7 || !hdr.Response || hdr.RCode != tc.rcode || len(answers) != tc.answers {
			t.Errorf("%s %v: id %d response %t %v with %d answers; want id 7, a response %v with %d", tc.name,
				tc.typ, hdr.ID, hdr.Response, hdr.RCode, len(answers), tc.rcode, tc.answers)
		}
	}
}

// dnsHarness is a harness whose namespace has the two Services of base/'s manager, both on port, and one
// Ready pod they select, whose process is echo.
func dnsHarness(t *testing.T, echo net.Listener, port int) *Harness {
	t.Helper()
	sel := map[string]string{"app": "m"}
	svc := func(name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.7", Selector: sel,
				Ports: []corev1.ServicePort{{Port: int32(port), TargetPort: intstr.FromString("standby")}}}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: dnsNamespace, Name: "m-1", UID: "m-1", Labels: sel},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, byNamespace)
	if err := pods.Add(pod); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Client: fake.NewClientset(svc("siteops-webhook-service-preview"), svc("siteops-webhook-service")),
		Namespace: dnsNamespace, Logf: t.Logf})
	h.pods = listersv1.NewPodLister(pods)
	h.procs = map[types.UID]*PodProcess{"m-1": {Pod: "m-1",
		Ports: map[string]int{"standby": echo.Addr().(*net.TCPAddr).Port}}}
	return h
}

// serveDNS serves h's DNS on a UDP port of 127.0.0.1 until the test ends, and returns a resolver that asks
// only it, as the rollouts-controller's with SITEOPS_CLUSTER_DNS, and the port.
func serveDNS(t *testing.T, h *Harness) (*net.Resolver, int) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := pc.LocalAddr().(*net.UDPAddr).Port
	go h.ServeDNS(t.Context(), pc, h.ServiceNet(uint16(port)))
	var d net.Dialer
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		if network != "udp" {
			return nil, errors.New("the test's DNS serves UDP only")
		}
		return d.DialContext(ctx, network, pc.LocalAddr().String())
	}}, port
}

// dnsQuery is a DNS query with ID 7 for name and typ.
func dnsQuery(t *testing.T, name string, typ dnsmessage.Type) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
	_ = b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ,
		Class: dnsmessage.ClassINET}); err != nil {
		t.Fatal(err)
	}
	q, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// echoServer listens on 127.0.0.1 and echoes each connection until the test ends.
func echoServer(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	return l
}

// freePort is a TCP port free on 127.0.0.1 now, for a Service port.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
