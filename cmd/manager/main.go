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

// Command manager runs the siteops controllers: CronJob, Guestbook and SiteSync, their admission webhooks and
// the Git push receiver. It is flag parsing and wiring only; the behaviour lives in controllers/ and gitops/.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/shard"
	"github.com/siteops/siteops/internal/sitesyncledger"
	"github.com/siteops/siteops/internal/version"
)

// options are the manager's flags.
type options struct {
	metricsAddr, probeAddr, receiverAddr  string
	pprofAddr                             string
	apiCompression                        bool
	secureMetrics, enableHTTP2            bool
	enableWebhooks                        bool
	webhookPort                           int
	webhookHost                           string
	webhookCertDir                        string
	leaderElect                           bool
	leaderElector                         string
	activeService, podTemplateHash        string
	leaderElectionID, leaderElectionNS    string
	leaseDuration, renewDeadline, retry   time.Duration
	releaseOnCancel                       bool
	workDir                               string
	ledgerWindow                          time.Duration
	standby, secureStandby                bool
	standbyAddr                           string
	standbyInterval                       time.Duration
	certSource, certSecret, certNamespace string
	certService, certHosts                string
	mutatingWebhook, validatingWebhook    string
	watch                                 *selectorFlag
	// deprecated warns of each deprecated flag the command line set.
	deprecated []string
}

// parseFlags parses args (without the program name) into the manager's options and the zap logger's.
// showVersion is --version.
func parseFlags(fs *flag.FlagSet, args []string) (o options, zo zap.Options, showVersion bool, err error) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "127.0.0.1:8443",
		"Address of the metrics endpoint (HTTPS unless --metrics-secure=false); \"0\" disables it.")
	fs.BoolVar(&o.secureMetrics, "metrics-secure", true, "Serve metrics over HTTPS with authentication and authorization.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false, "Enable HTTP/2 for the metrics and webhook servers "+
		"(off: HTTP/2 Rapid Reset and Stream Cancellation CVEs).")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", "127.0.0.1:8081", "Address of /healthz and /readyz.")
	fs.StringVar(&o.receiverAddr, "receiver-bind-address", "127.0.0.1:9292",
		"Address of the Git push receiver; \"0\" disables it.")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "0",
		"Address of Go's /debug/pprof profiling endpoints (plain HTTP: keep it on loopback); \"0\" disables them.")
	fs.BoolVar(&o.apiCompression, "api-compression", false, "Ask the API server for gzip-compressed responses, "+
		"watches included (off: next to the API server gzip costs more CPU than the bytes it saves).")
	fs.BoolVar(&o.enableWebhooks, "enable-webhooks", true, "Serve the admission webhooks.")
	fs.IntVar(&o.webhookPort, "webhook-port", 9443, "Port of the admission webhook server.")
	fs.StringVar(&o.webhookHost, "webhook-host", "",
		"Address the admission webhook server listens on (default: every interface).")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", "",
		"Folder with tls.crt/tls.key for the webhook server (default: controller-runtime's).")
	fs.BoolVar(&o.leaderElect, "leader-elect", true,
		"Elect a leader so only one manager reconciles; the others stay Ready as standbys.")
	fs.StringVar(&o.leaderElectionID, "leader-election-id", "siteops.siteops.dev", "Name of the leader election Lease.")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "",
		"Namespace of the Lease (default: the pod's namespace).")
	fs.StringVar(&o.leaderElector, "leader-elector", electorSiteops, "How managers elect a leader: \""+
		electorSiteops+"\" (follows --active-service, no restarts) or \""+electorControllerRuntime+
		"\" (a manager that loses the lease exits).")
	fs.StringVar(&o.activeService, "active-service", "", "With --leader-elector="+electorSiteops+": the Argo "+
		"Rollouts active Service; only a pod it selects (--pod-template-hash) may lead. Empty: any pod may.")
	fs.StringVar(&o.podTemplateHash, "pod-template-hash", "", "This pod's rollouts-pod-template-hash label "+
		"(from the downward API), required with --active-service.")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second,
		"How long a standby waits before taking over a lease that was not released.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"How long the leader keeps trying to renew before it gives up.")
	fs.DurationVar(&o.retry, "leader-elect-retry-period", 500*time.Millisecond, "How often the leader renews "+
		"the lease; with --leader-elector="+electorControllerRuntime+" also how often a standby tries to take it.")
	fs.BoolVar(&o.releaseOnCancel, "leader-elect-release-on-cancel", true, "Release the lease when the "+
		"manager stops (SIGTERM), so a standby takes over at once instead of at its expiry.")
	fs.StringVar(&o.workDir, "work-dir", os.TempDir()+"/siteops",
		"Folder for Git clones of SiteSync sources and targets.")
	fs.DurationVar(&o.ledgerWindow, "ledger-window", sitesyncledger.DefaultWindow,
		"The period the delivery ledger's metrics (siteops_ledger_*) cover, ending at each scrape.")
	fs.BoolVar(&o.standby, "standby", true, "While not leading, run the CronJob and Guestbook reconcilers "+
		"with every write sent as a server-side dry run, and report what they would change.")
	fs.DurationVar(&o.standbyInterval, "standby-interval", time.Second, "With --standby: the least time between "+
		"two dry-run reconciles of one object; a change within it waits for its end. 0: every change at once.")
	fs.StringVar(&o.standbyAddr, "standby-bind-address", "127.0.0.1:8082",
		"Address of the standby report (GET /standby, GET /writes); \"0\" disables it.")
	fs.BoolVar(&o.secureStandby, "standby-secure", true, "Serve the standby report over HTTPS, allowing only "+
		"a bearer token with get on /standby and /writes (ClusterRole standby-reader). Off: plain HTTP.")
	deprecatedAliases(fs, renamedFlags())
	fs.StringVar(&o.certSource, "cert-source", certSourceFiles, "Webhook certificate: \"files\" reads "+
		"--webhook-cert-dir; \"self\" keeps a CA and certificate in --cert-secret and injects the CA into the webhooks.")
	fs.StringVar(&o.certSecret, "cert-secret", "siteops-webhook-server-cert",
		"With --cert-source=self: the Secret holding the CA and serving certificate, shared by both colours.")
	fs.StringVar(&o.certNamespace, "cert-namespace", "siteops-system",
		"With --cert-source=self: namespace of --cert-secret and --cert-service.")
	fs.StringVar(&o.certService, "cert-service", "siteops-webhook-service",
		"With --cert-source=self: the webhook Service the certificate names.")
	fs.StringVar(&o.certHosts, "cert-hosts", "", "With --cert-source=self: more comma-separated names or IP "+
		"addresses for the serving certificate (e.g. 127.0.0.1 for webhooks routed to a host process).")
	fs.StringVar(&o.mutatingWebhook, "mutating-webhook-configuration", "siteops-mutating-webhook-configuration",
		"With --cert-source=self: the MutatingWebhookConfiguration that gets the CA.")
	fs.StringVar(&o.validatingWebhook, "validating-webhook-configuration",
		"siteops-validating-webhook-configuration",
		"With --cert-source=self: the ValidatingWebhookConfiguration that gets the CA.")
	o.watch = newSelectorFlag(shard.MainSelector)
	fs.Var(o.watch, "watch-label-selector", watchSelectorUsage)
	fs.BoolVar(&showVersion, "version", false, "Print the version and exit.")
	// An error is one line: a stack trace would only say where it was logged (controller-runtime's reconcile
	// loop, for every reconcile error), not what went wrong. --zap-stacktrace-level brings traces back.
	// INFO, in development mode (--zap-devel) too, whose default would be DEBUG: V(1) lines such as the
	// standby's "api write" are for --zap-log-level=debug.
	zo = zap.Options{Development: false, StacktraceLevel: zapcore.PanicLevel, Level: zapcore.InfoLevel}
	zo.BindFlags(fs)
	err = fs.Parse(args)
	o.deprecated = deprecatedUsed(fs, renamedFlags())
	o.leaderElectionID = shardLease(fs, o.leaderElectionID, o.watch.Selector())
	return o, zo, showVersion, err
}

func main() {
	o, zo, showVersion, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		os.Exit(2) // flag.ExitOnError has printed the usage already
	}
	if showVersion {
		fmt.Println(version.Version)
		os.Exit(0)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zo)))
	if err := run(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), o, clock.RealClock{}, ctrl.Log); err != nil {
		ctrl.Log.WithName("setup").Error(err, "manager exited")
		os.Exit(1)
	}
}

// run runs the manager with options o against the apiserver of cfg until ctx ends; clk drives the
// reconcilers' schedules and durations, and the manager and its controllers log to log.
func run(ctx context.Context, cfg *rest.Config, o options, clk clock.Clock, log logr.Logger) error {
	for _, w := range o.deprecated {
		log.WithName("setup").Info(w)
	}
	cfg = apiConfig(cfg, o)
	scheme, err := apis.NewScheme()
	if err != nil {
		return err
	}
	var tlsOpts []func(*tls.Config)
	if !o.enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{BindAddress: o.metricsAddr, SecureServing: o.secureMetrics, TLSOpts: tlsOpts}
	if o.secureMetrics {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	certDir, rotator, err := setupCerts(ctx, cfg, scheme, o, log)
	if err != nil {
		return err
	}
	m, err := newMetrics(metrics.Registry)
	if err != nil {
		return err
	}
	el, err := newElection(cfg, o, clk, m.leadership, log)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Logger:                 log,
		Scheme:                 scheme,
		Cache:                  shard.CacheOptions(o.watch.Selector(), guestbook.FieldOwner),
		Metrics:                metricsOpts,
		HealthProbeBindAddress: o.probeAddr,
		PprofBindAddress:       o.pprofAddr,
		WebhookServer: webhook.NewServer(webhook.Options{Host: o.webhookHost, Port: o.webhookPort,
			CertDir: certDir, TLSOpts: tlsOpts}),
		LeaderElection:                el.controllerRuntime,
		LeaderElectionID:              o.leaderElectionID,
		LeaderElectionNamespace:       o.leaderElectionNS,
		LeaderElectionReleaseOnCancel: o.releaseOnCancel,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retry,
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if rotator != nil {
		if err := mgr.Add(rotator); err != nil {
			return fmt.Errorf("adding the webhook certificate rotator: %w", err)
		}
	}
	if el.runnable != nil {
		if err := mgr.Add(el.runnable); err != nil {
			return fmt.Errorf("adding the leader election: %w", err)
		}
	}
	if err := setupFeatures(mgr, o, clk, el.fence, tlsOpts, m); err != nil {
		return err
	}
	// Readiness never depends on holding the lease: a standby (the preview colour of a blue/green upgrade) must
	// become Ready while the active colour leads.
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	ready := healthz.Ping
	if o.enableWebhooks {
		ready = mgr.GetWebhookServer().StartedChecker()
	}
	if err := mgr.AddReadyzCheck("readyz", ready); err != nil {
		return fmt.Errorf("adding ready check: %w", err)
	}
	warm := &leadership.Readiness{Caches: mgr.GetCache()}
	if e, ok := el.runnable.(*leadership.Elector); ok {
		warm.Elector = e
	}
	if err := mgr.AddReadyzCheck("warm", warm.Check); err != nil {
		return fmt.Errorf("adding warm-up check: %w", err)
	}
	log.WithName("setup").Info("manager started", "version", version.Version, "leaderElection", o.leaderElect,
		"leaderElector", o.leaderElector, "activeService", o.activeService, "podTemplateHash", o.podTemplateHash)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}

// apiConfig is cfg as the manager uses it: without response compression unless --api-compression asks for it.
func apiConfig(cfg *rest.Config, o options) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if !o.apiCompression {
		cfg.DisableCompression = true
	}
	return cfg
}
