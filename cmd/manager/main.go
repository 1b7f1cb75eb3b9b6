// Command manager runs the siteops controllers: CronJob, Guestbook and SiteSync, their admission webhooks and
// the Git push receiver. It is flag parsing and wiring only; the behaviour lives in controllers/ and gitops/.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/gitops"
)

// options are the manager's flags.
type options struct {
	metricsAddr, probeAddr, receiverAddr string
	secureMetrics, enableHTTP2           bool
	enableWebhooks                       bool
	webhookPort                          int
	webhookCertDir                       string
	leaderElect                          bool
	leaderElectionID, leaderElectionNS   string
	leaseDuration, renewDeadline, retry  time.Duration
	releaseOnCancel                      bool
	workDir                              string
	shadow                               bool
	shadowAddr                           string
}

func parseFlags() (options, zap.Options) {
	var o options
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "127.0.0.1:8443", "Address of the metrics endpoint (HTTPS unless --metrics-secure=false); \"0\" disables it.")
	flag.BoolVar(&o.secureMetrics, "metrics-secure", true, "Serve metrics over HTTPS with authentication and authorization.")
	flag.BoolVar(&o.enableHTTP2, "enable-http2", false, "Enable HTTP/2 for the metrics and webhook servers (off: HTTP/2 Rapid Reset and Stream Cancellation CVEs).")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", "127.0.0.1:8081", "Address of /healthz and /readyz.")
	flag.StringVar(&o.receiverAddr, "receiver-bind-address", "127.0.0.1:9292", "Address of the Git push receiver; \"0\" disables it.")
	flag.BoolVar(&o.enableWebhooks, "enable-webhooks", true, "Serve the admission webhooks.")
	flag.IntVar(&o.webhookPort, "webhook-port", 9443, "Port of the admission webhook server.")
	flag.StringVar(&o.webhookCertDir, "webhook-cert-dir", "", "Folder with tls.crt/tls.key for the webhook server (default: controller-runtime's).")
	flag.BoolVar(&o.leaderElect, "leader-elect", true, "Elect a leader so only one manager reconciles; the others stay Ready as standbys.")
	flag.StringVar(&o.leaderElectionID, "leader-election-id", "siteops.siteops.dev", "Name of the leader election Lease.")
	flag.StringVar(&o.leaderElectionNS, "leader-election-namespace", "", "Namespace of the Lease (default: the pod's namespace).")
	flag.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a standby waits before taking over a lease that was not released.")
	flag.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps trying to renew before it gives up.")
	flag.DurationVar(&o.retry, "leader-elect-retry-period", 500*time.Millisecond, "How often a standby tries to take the lease; bounds the hand-off gap after a release.")
	flag.BoolVar(&o.releaseOnCancel, "leader-elect-release-on-cancel", true, "Release the lease when the manager stops (SIGTERM), so a standby takes over within one retry period instead of waiting for the lease to expire. Off is controller-runtime's default, kept for the hand-off benchmark's anchor.")
	flag.StringVar(&o.workDir, "work-dir", os.TempDir()+"/siteops", "Folder for Git clones of SiteSync sources and targets.")
	flag.BoolVar(&o.shadow, "shadow", true, "While not leading, run the CronJob and Guestbook reconcilers with every write sent as a server-side dry run, and report what they would change.")
	flag.StringVar(&o.shadowAddr, "shadow-bind-address", "127.0.0.1:8082", "Address of the plain-HTTP shadow report (GET /shadow, GET /writes); \"0\" disables it.")
	showVersion := flag.Bool("version", false, "Print the version and exit.")
	zo := zap.Options{Development: false}
	zo.BindFlags(flag.CommandLine)
	flag.Parse()
	if *showVersion {
		fmt.Println(gitops.Version)
		os.Exit(0)
	}
	return o, zo
}

func main() {
	o, zo := parseFlags()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zo)))
	log := ctrl.Log.WithName("setup")
	if err := run(o); err != nil {
		log.Error(err, "manager exited")
		os.Exit(1)
	}
}

func run(o options) error {
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
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        o.probeAddr,
		WebhookServer:                 webhook.NewServer(webhook.Options{Port: o.webhookPort, CertDir: o.webhookCertDir, TLSOpts: tlsOpts}),
		LeaderElection:                o.leaderElect,
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
	if err := setupFeatures(mgr, o, clock.RealClock{}); err != nil {
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
	ctrl.Log.WithName("setup").Info("manager started", "version", gitops.Version, "leaderElection", o.leaderElect)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
