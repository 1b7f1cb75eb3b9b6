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

// Command site-managers runs, for one site cluster of the local fleet (hack/local-sites.sh, site component
// "managers"), the processes behind the siteops manager pods that base/ deploys there: kwok binds and starts
// the pods but runs nothing, so this program starts bin/manager on the host for every such pod, with the
// pod's name and pod-template hash, against the site's kube-apiserver (test/podproc). It also serves that
// kube-apiserver's egress to the cluster network (an HTTP CONNECT proxy), so the admission webhooks of base/,
// called through their Service, reach the manager process behind it. With --cluster-dns it serves the
// cluster DNS of that namespace for programs on the host, such as the site's rollouts-controller, whose
// analyses ask the preview Service by name: SERVICE.NAMESPACE.svc resolves to a loopback address of the
// Service's own where its ports lead to the process behind it. It runs until SIGINT or SIGTERM, then stops the
// managers.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/test/podproc"
)

func main() {
	// A flag set of its own: the libraries linked in register their flags (kubeconfig) on flag.CommandLine.
	fs := flag.NewFlagSet("site-managers", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "The site cluster's admin kubeconfig.")
	manager := fs.String("manager", "bin/manager", "The manager binary each pod runs.")
	workDir := fs.String("work-dir", "", "Parent of each manager's work folder.")
	egress := fs.String("egress-socket", "", "The Unix socket where the site's kube-apiserver sends its "+
		"egress to the cluster (HTTP CONNECT); empty: no egress proxy.")
	dns := fs.String("cluster-dns", "", "Serve the cluster DNS of --namespace on this UDP address of 127.0.0.1 "+
		"(e.g. 127.0.0.1:5353); empty: no DNS.")
	namespace := fs.String("namespace", "siteops-system", "Namespace of the manager pods and their Services.")
	selector := fs.String("selector", "app.kubernetes.io/name=siteops,app.kubernetes.io/component=manager",
		"Label selector of the manager pods.")
	active := fs.String("active-service", "siteops-webhook-service", "The manager Rollout's active Service.")
	_ = fs.Parse(os.Args[1:]) // ExitOnError: a bad flag has exited
	if err := run(*kubeconfig, *manager, *workDir, *egress, *dns, *namespace, *selector, *active); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func run(kubeconfig, manager, workDir, egress, dns, namespace, selector, active string) error {
	if kubeconfig == "" || workDir == "" {
		return fmt.Errorf("--kubeconfig and --work-dir are required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := podproc.New(podproc.Config{Client: cs, Namespace: namespace, Selector: selector, Binary: manager,
		Kubeconfig: kubeconfig, ActiveService: active, SelfCerts: true, StandbySecure: true, WorkDir: workDir,
		Logf: log.Printf})
	if egress != "" {
		_ = os.Remove(egress) // a socket left by a process that was killed
		l, err := net.Listen("unix", egress)
		if err != nil {
			return fmt.Errorf("egress proxy: %w", err)
		}
		go h.ServeConnect(ctx, l)
	}
	if dns != "" {
		if err := serveDNS(ctx, h, dns); err != nil {
			return err
		}
	}
	if err := h.Start(ctx); err != nil {
		return err
	}
	log.Printf("backing the pods %s in namespace %s with %s", selector, namespace, manager)
	<-ctx.Done()
	log.Print("stopping the managers")
	h.Stop()
	return nil
}

// serveDNS serves h's cluster DNS on the UDP address addr of 127.0.0.1, its Services on addresses of the
// loopback /24 that addr's port picks (podproc.ServiceNet), until ctx ends.
func serveDNS(ctx context.Context, h *podproc.Harness, addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || ap.Addr() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
		return fmt.Errorf("--cluster-dns %q: want 127.0.0.1:PORT", addr)
	}
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return fmt.Errorf("cluster DNS: %w", err)
	}
	go h.ServeDNS(ctx, pc, h.ServiceNet(ap.Port()))
	log.Printf("serving the cluster DNS of the Services on %s", addr)
	return nil
}
