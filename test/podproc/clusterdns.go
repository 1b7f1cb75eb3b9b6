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
	"net"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dnsTTL is the time to live of an answer, in seconds: short, as a Service's address is fixed only for the
// life of its ServiceNet.
const dnsTTL = 5

// ServeDNS is the cluster DNS of the harness' namespace for programs on the host, over UDP on pc: an A query
// for SERVICE.NAMESPACE.svc or SERVICE.NAMESPACE.svc.cluster.local of a Service in that namespace is answered
// with the Service's loopback address on n (ServiceNet.Expose), where its ports lead to the process behind it;
// a query for any other name is answered NXDOMAIN. It serves pc until ctx ends.
func (h *Harness) ServeDNS(ctx context.Context, pc net.PacketConn, n *ServiceNet) {
	go func() { <-ctx.Done(); _ = pc.Close() }()
	buf := make([]byte, 512)
	for {
		size, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		query := append([]byte(nil), buf[:size]...)
		go func() {
			if reply := h.answerDNS(ctx, query, n); reply != nil {
				_, _ = pc.WriteTo(reply, from)
			}
		}()
	}
}

// answerDNS is the reply to the DNS message query, or nil when query is no question to answer.
func (h *Harness) answerDNS(ctx context.Context, query []byte, n *ServiceNet) []byte {
	var p dnsmessage.Parser
	hdr, err := p.Start(query)
	if err != nil || hdr.Response {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	rcode, addr := h.lookup(ctx, q, n)
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: hdr.ID, Response: true, Authoritative: true,
		RecursionDesired: hdr.RecursionDesired, RCode: rcode})
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	if addr != nil {
		_ = b.StartAnswers()
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: dnsTTL},
			dnsmessage.AResource{A: [4]byte(addr.To4())})
	}
	reply, err := b.Finish()
	if err != nil {
		return nil
	}
	return reply
}

// lookup answers question q: the reply's code and, for an A query of a Service, its address. A Service's
// name asked for another type has no answer and no error, as in a cluster DNS without IPv6.
func (h *Harness) lookup(ctx context.Context, q dnsmessage.Question, n *ServiceNet) (dnsmessage.RCode, net.IP) {
	service, ok := h.serviceName(q.Name.String())
	if !ok || q.Class != dnsmessage.ClassINET {
		return dnsmessage.RCodeNameError, nil
	}
	svc, err := h.cfg.Client.CoreV1().Services(h.cfg.Namespace).Get(ctx, service, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return dnsmessage.RCodeNameError, nil
	}
	if err != nil {
		h.cfg.Logf("podproc: DNS %s: %v", q.Name, err)
		return dnsmessage.RCodeServerFailure, nil
	}
	if q.Type != dnsmessage.TypeA {
		return dnsmessage.RCodeSuccess, nil
	}
	addr, err := n.Expose(ctx, svc)
	if err != nil {
		h.cfg.Logf("podproc: DNS %s: %v", q.Name, err)
		return dnsmessage.RCodeServerFailure, nil
	}
	return dnsmessage.RCodeSuccess, addr
}

// serviceName is the Service that the fully qualified name fqdn names in the harness' namespace.
func (h *Harness) serviceName(fqdn string) (string, bool) {
	name := strings.ToLower(strings.TrimSuffix(fqdn, "."))
	name = strings.TrimSuffix(name, ".cluster.local")
	labels := strings.Split(name, ".")
	if len(labels) != 3 || labels[0] == "" || labels[1] != h.cfg.Namespace || labels[2] != "svc" {
		return "", false
	}
	return labels[0], true
}
