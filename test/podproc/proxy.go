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
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Proxy plays kube-proxy for one Service port: it listens on a loopback address and forwards each TCP
// connection to the process of a Ready pod that the Service's selector selects when the connection arrives, at
// the port the Service port's targetPort names. The local cluster cannot do this itself: kwok pod IPs lead nowhere,
// and EndpointSlices refuse loopback addresses.
type Proxy struct {
	// Service and ServicePort name what the proxy stands for; Port is its port on its loopback address.
	Service     string
	ServicePort int32
	Port        int

	h    *Harness
	l    net.Listener
	mu   sync.Mutex
	last string // the pod of the last connection, to log changes
}

// Proxy starts a proxy for port servicePort of Service service in the harness' namespace, on a free loopback
// port, until ctx ends.
func (h *Harness) Proxy(ctx context.Context, service string, servicePort int32) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return h.proxyOn(ctx, l, service, servicePort), nil
}

// proxyOn serves l as the proxy for port servicePort of Service service until ctx ends.
func (h *Harness) proxyOn(ctx context.Context, l net.Listener, service string, servicePort int32) *Proxy {
	p := &Proxy{Service: service, ServicePort: servicePort, Port: l.Addr().(*net.TCPAddr).Port, h: h, l: l}
	go func() { <-ctx.Done(); _ = l.Close() }()
	go p.serve(ctx)
	return p
}

// LastPod is the pod the last connection went to ("" before the first).
func (p *Proxy) LastPod() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Addr is the proxy's address, e.g. 127.0.0.1:Port.
func (p *Proxy) Addr() string { return p.l.Addr().String() }

func (p *Proxy) serve(ctx context.Context) {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		go p.forward(ctx, c)
	}
}

// forward copies c to and from the backend the Service selects now; with no backend it closes c, as a
// Service without endpoints refuses connections.
func (p *Proxy) forward(ctx context.Context, c net.Conn) {
	defer func() { _ = c.Close() }()
	to, pod, err := p.backend(ctx)
	if err != nil {
		p.h.cfg.Logf("podproc: proxy %s:%d: no backend: %v", p.Service, p.ServicePort, err)
		return
	}
	p.mu.Lock()
	if pod != p.last {
		p.h.cfg.Logf("podproc: proxy %s:%d → pod %s (%s)", p.Service, p.ServicePort, pod, to)
		p.last = pod
	}
	p.mu.Unlock()
	b, err := net.Dial("tcp", to)
	if err != nil {
		p.h.cfg.Logf("podproc: proxy %s:%d: dialing pod %s: %v", p.Service, p.ServicePort, pod, err)
		return
	}
	defer func() { _ = b.Close() }()
	splice(c, b)
}

// splice copies a to b and b to a until both directions end, closing each side's writes when its source ends.
func splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(b, a)
	go pipe(a, b)
	<-done
	<-done
}

// backend reads the Service now and picks the process behind it: its address and pod name.
func (p *Proxy) backend(ctx context.Context) (addr, pod string, err error) {
	svc, err := p.h.cfg.Client.CoreV1().Services(p.h.cfg.Namespace).Get(ctx, p.Service, metav1.GetOptions{})
	if err != nil {
		return "", "", err
	}
	ready, err := p.h.readyPods()
	if err != nil {
		return "", "", err
	}
	proc, port, err := pickBackend(svc, p.ServicePort, ready, p.h.running)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", port), proc.Pod, nil
}

var errNoEndpoints = errors.New("no Ready pod with a running process matches the Service's selector")

// pickBackend is the first of the ready pods (sorted by name) that svc's selector selects and whose process
// runs (running), with the loopback port of servicePort's targetPort.
func pickBackend(svc *corev1.Service, servicePort int32, ready []*corev1.Pod,
	running func(types.UID) *PodProcess) (*PodProcess, int, error) {
	var target *intstr.IntOrString
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == servicePort {
			target = &svc.Spec.Ports[i].TargetPort
		}
	}
	if target == nil {
		return nil, 0, fmt.Errorf("service %s has no port %d", svc.Name, servicePort)
	}
	if len(svc.Spec.Selector) == 0 {
		return nil, 0, fmt.Errorf("service %s has no selector", svc.Name)
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, pod := range ready {
		if !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		proc := running(pod.UID)
		if proc == nil {
			continue
		}
		if port := proc.Ports[portName(pod, *target)]; port != 0 {
			return proc, port, nil
		}
	}
	return nil, 0, errNoEndpoints
}

// portName is the container port name target means in pod: target itself when named, else the name of the
// container port with that number.
func portName(pod *corev1.Pod, target intstr.IntOrString) string {
	if target.Type == intstr.String {
		return target.StrVal
	}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.ContainerPort == target.IntVal {
				return cp.Name
			}
		}
	}
	return ""
}

// readyPods are the pods of the harness whose Ready condition is True and that are not terminating, by name.
func (h *Harness) readyPods() ([]*corev1.Pod, error) {
	all, err := h.pods.Pods(h.cfg.Namespace).List(everything)
	if err != nil {
		return nil, err
	}
	var ready []*corev1.Pod
	for _, p := range all {
		if p.DeletionTimestamp == nil && podReady(p) {
			ready = append(ready, p)
		}
	}
	sort.Slice(ready, func(i, j int) bool { return ready[i].Name < ready[j].Name })
	return ready, nil
}

// running is the process of pod uid while it runs and was not told to stop.
func (h *Harness) running(uid types.UID) *PodProcess {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.procs[uid]
}
