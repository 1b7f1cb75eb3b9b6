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
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// TestServeConnectLeadsAServiceClusterIPToThePodProcess: a kube-apiserver's CONNECT to a Service's cluster IP
// and port (how it calls a webhook Service) reaches the process behind the Ready pod the Service selects, at
// the port its targetPort names; a CONNECT to a cluster IP no Service has is refused.
func TestServeConnectLeadsAServiceClusterIPToThePodProcess(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = echo.Close() }()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	const ns = "siteops-system"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "siteops-webhook-service"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.7", Selector: map[string]string{"app": "m"},
			Ports: []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromString("webhook")}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m-1", UID: "m-1",
		Labels: map[string]string{"app": "m"}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, byNamespace)
	if err := pods.Add(pod); err != nil {
		t.Fatal(err)
	}
	h := New(Config{Client: fake.NewClientset(svc), Namespace: ns, Logf: t.Logf})
	h.pods = listersv1.NewPodLister(pods)
	h.procs = map[types.UID]*PodProcess{"m-1": {Pod: "m-1",
		Ports: map[string]int{"webhook": echo.Addr().(*net.TCPAddr).Port}}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go h.ServeConnect(t.Context(), l)

	c, status := connectVia(t, l.Addr().String(), "10.96.0.7:443")
	if !strings.Contains(status, " 200 ") {
		t.Fatalf("CONNECT to the Service's cluster IP answered %q, want 200", status)
	}
	if _, err := fmt.Fprint(c, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || got != "ping\n" {
		t.Fatalf("through the tunnel: got %q, %v; want the pod process' echo", got, err)
	}
	if _, status := connectVia(t, l.Addr().String(), "10.96.0.99:443"); !strings.Contains(status, " 502 ") {
		t.Fatalf("CONNECT to a cluster IP no Service has answered %q, want 502", status)
	}
}

// connectVia sends CONNECT target to the proxy at addr and returns the connection and the status line.
func connectVia(t *testing.T, addr, target string) (net.Conn, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	for line := status; line != "\r\n"; {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	return c, status
}
