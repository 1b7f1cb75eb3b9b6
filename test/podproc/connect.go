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
	"fmt"
	"net"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServeConnect is the cluster network of a kube-apiserver whose egress to the cluster goes through an HTTP
// CONNECT proxy (an EgressSelectorConfiguration with egress "cluster", HTTPConnect over a Unix socket): it calls a
// webhook Service by its cluster IP, which leads nowhere on the local cluster. A CONNECT to the cluster IP
// and port of a Service in the harness' namespace goes to the process of a Ready pod behind it, as kube-proxy
// would; a CONNECT to 127.0.0.1 (a kwok node's port, for logs) goes there; any other is refused. It serves
// l until ctx ends.
func (h *Harness) ServeConnect(ctx context.Context, l net.Listener) {
	go func() { <-ctx.Done(); _ = l.Close() }()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go h.connect(ctx, c)
	}
}

// connect answers one CONNECT request on c and splices c to where it leads.
func (h *Harness) connect(ctx context.Context, c net.Conn) {
	defer func() { _ = c.Close() }()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		_, _ = fmt.Fprint(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	to, err := h.connectTarget(ctx, req.Host)
	if err != nil {
		h.cfg.Logf("podproc: CONNECT %s: %v", req.Host, err)
		_, _ = fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	b, err := net.Dial("tcp", to)
	if err != nil {
		h.cfg.Logf("podproc: CONNECT %s: dialing %s: %v", req.Host, to, err)
		_, _ = fmt.Fprintf(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer func() { _ = b.Close() }()
	if _, err := fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	if n := br.Buffered(); n > 0 {
		pending, _ := br.Peek(n)
		if _, err := b.Write(pending); err != nil {
			return
		}
	}
	splice(c, b)
}

// connectTarget is the loopback address a CONNECT to hostPort leads to.
func (h *Harness) connectTarget(ctx context.Context, hostPort string) (string, error) {
	host, portText, err := net.SplitHostPort(hostPort)
	if err != nil {
		return "", err
	}
	if host == "127.0.0.1" || host == "localhost" {
		return hostPort, nil
	}
	port, err := strconv.ParseInt(portText, 10, 32)
	if err != nil {
		return "", err
	}
	svcs, err := h.cfg.Client.CoreV1().Services(h.cfg.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	var svc *corev1.Service
	for i := range svcs.Items {
		if svcs.Items[i].Spec.ClusterIP == host {
			svc = &svcs.Items[i]
		}
	}
	if svc == nil {
		return "", fmt.Errorf("no Service in namespace %s has cluster IP %s", h.cfg.Namespace, host)
	}
	ready, err := h.readyPods()
	if err != nil {
		return "", err
	}
	_, backend, err := pickBackend(svc, int32(port), ready, h.running)
	if err != nil {
		return "", fmt.Errorf("service %s: %w", svc.Name, err)
	}
	return fmt.Sprintf("127.0.0.1:%d", backend), nil
}
