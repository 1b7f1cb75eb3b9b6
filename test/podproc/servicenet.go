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
	"fmt"
	"net"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// ServiceNet gives the Services of the harness' namespace addresses on the host, as kube-proxy gives them
// cluster IPs: each Service its own loopback address in the /24 127.A.B.0/24, the first it asks for
// 127.A.B.1, and on that address, for each of its TCP ports, a Proxy to the process behind it. Linux routes
// all of 127.0.0.0/8 to the loopback interface, so the addresses need no setup. A Service keeps its address
// for the life of the ServiceNet.
type ServiceNet struct {
	h    *Harness
	base [3]byte // 127.A.B

	mu    sync.Mutex
	addrs map[string]net.IP   // Service name → its address
	tried map[string]struct{} // "SERVICE:PORT" whose proxy was started, or could not be bound
}

// ServiceNet makes a ServiceNet in 127.A.B.0/24, A.B the two bytes of port (a site's DNS port: sites with
// different DNS ports get different addresses).
func (h *Harness) ServiceNet(port uint16) *ServiceNet {
	return &ServiceNet{h: h, base: [3]byte{127, byte(port >> 8), byte(port)}, addrs: map[string]net.IP{},
		tried: map[string]struct{}{}}
}

// Expose is svc's address, and makes sure a Proxy listens there on each of svc's TCP ports until ctx ends. A
// port that cannot be bound (another program holds it on every address) is logged and left out.
func (n *ServiceNet) Expose(ctx context.Context, svc *corev1.Service) (net.IP, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr, ok := n.addrs[svc.Name]
	if !ok {
		if len(n.addrs) >= 254 {
			return nil, fmt.Errorf("service %s: all of %d.%d.%d.0/24 is taken", svc.Name, n.base[0], n.base[1],
				n.base[2])
		}
		addr = net.IPv4(n.base[0], n.base[1], n.base[2], byte(len(n.addrs)+1))
		n.addrs[svc.Name] = addr
	}
	for _, sp := range svc.Spec.Ports {
		if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
			continue
		}
		key := svc.Name + ":" + strconv.Itoa(int(sp.Port))
		if _, done := n.tried[key]; done {
			continue
		}
		n.tried[key] = struct{}{}
		l, err := net.Listen("tcp", net.JoinHostPort(addr.String(), strconv.Itoa(int(sp.Port))))
		if err != nil {
			n.h.cfg.Logf("podproc: service %s port %d on %s: %v", svc.Name, sp.Port, addr, err)
			continue
		}
		n.h.proxyOn(ctx, l, svc.Name, sp.Port)
	}
	return addr, nil
}
