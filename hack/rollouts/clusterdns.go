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

// This file gives the rollouts-controller of the local fleet a cluster DNS. hack/build-bins.sh copies it into
// Argo Rollouts' source tree as cmd/rollouts-controller/siteops_clusterdns.go. The controller runs on the host
// against a site cluster (hack/local-sites.sh), where a name such as SERVICE.NAMESPACE.svc, which an
// AnalysisTemplate's web metric asks, does not resolve. With SITEOPS_CLUSTER_DNS=127.0.0.1:PORT set, every DNS
// query goes to that server (the site's, served by hack/sitemanagers) instead of /etc/resolv.conf's; /etc/hosts
// still answers first. Unset, the controller resolves names as upstream's does.
//
// The ignore directive in go.mod keeps siteops' own build, vet and lint away from it: it is package main of
// another module.
package main

import (
	"context"
	"net"
	"os"
)

func init() {
	server := os.Getenv("SITEOPS_CLUSTER_DNS")
	if server == "" {
		return
	}
	var d net.Dialer
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		// Dial ignores the server from /etc/resolv.conf and asks SITEOPS_CLUSTER_DNS over the same network.
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, server)
		},
	}
}
