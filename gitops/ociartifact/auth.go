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

package ociartifact

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/source"
)

// Auth holds what a registry needs of siteops, always read by the caller from a Kubernetes Secret (never
// logged).
type Auth struct {
	// DockerConfigJSON is the content of a kubernetes.io/dockerconfigjson Secret's `.dockerconfigjson` key.
	DockerConfigJSON []byte
	// CABundle holds PEM certificates HTTPS connections trust on top of the system's (a private CA), with the
	// same rules as for Git.
	CABundle []byte
}

// dockerConfig is the part of a Docker config file that names credentials.
type dockerConfig struct {
	Auths map[string]dockerAuth `json:"auths"`
}

type dockerAuth struct {
	Username      string `json:"username"`
	Password      string `json:"password"`
	Auth          string `json:"auth"`
	IdentityToken string `json:"identitytoken"`
	RegistryToken string `json:"registrytoken"`
}

// authenticator is the registry's credentials from a's Docker config, anonymous when a names none for it.
// A config that cannot be parsed is a permanent error that never quotes it.
func authenticator(a *Auth, reg name.Registry) (authn.Authenticator, error) {
	if a == nil || len(a.DockerConfigJSON) == 0 {
		return authn.Anonymous, nil
	}
	var cfg dockerConfig
	if err := json.Unmarshal(a.DockerConfigJSON, &cfg); err != nil {
		return nil, permanent.Error(errors.New("the registry credentials are not a Docker config JSON " +
			"(key .dockerconfigjson of a kubernetes.io/dockerconfigjson Secret)"))
	}
	for key, e := range cfg.Auths {
		if registryHost(key) != reg.RegistryStr() {
			continue
		}
		ac := authn.AuthConfig{Username: e.Username, Password: e.Password, IdentityToken: e.IdentityToken,
			RegistryToken: e.RegistryToken}
		if e.Auth != "" {
			dec, err := base64.StdEncoding.DecodeString(e.Auth)
			user, pass, ok := strings.Cut(string(dec), ":")
			if err != nil || !ok {
				return nil, permanent.Error(fmt.Errorf("the Docker config's auth of %s is not base64 of user:password",
					reg.RegistryStr()))
			}
			ac.Username, ac.Password = user, pass
		}
		return authn.FromConfig(ac), nil
	}
	return authn.Anonymous, nil
}

// registryHost is the host[:port] of a Docker config key, which may be a URL ("https://host/v1/").
func registryHost(key string) string {
	key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	host, _, _ := strings.Cut(key, "/")
	if host == "docker.io" || host == "index.docker.io" {
		return name.DefaultRegistry
	}
	return host
}

// httpTransport is the HTTP transport to the registry: the system's roots plus a's CA bundle, checked as for Git
// (source.CABundle); certificate verification cannot be turned off.
func httpTransport(a *Auth) (http.RoundTripper, error) {
	var ca []byte
	if a != nil {
		var err error
		if ca, err = source.CABundle(&source.Auth{CABundle: a.CABundle}); err != nil {
			return nil, err
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	if ca == nil {
		return t, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	pool.AppendCertsFromPEM(ca)
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}

// secrets are the passwords and tokens of a's Docker config (and the encoded auth fields), which errors must
// not quote.
func secrets(a *Auth) []string {
	if a == nil {
		return nil
	}
	var cfg dockerConfig
	if json.Unmarshal(a.DockerConfigJSON, &cfg) != nil {
		return nil
	}
	var out []string
	for _, e := range cfg.Auths {
		for _, s := range []string{e.Password, e.Auth, e.IdentityToken, e.RegistryToken} {
			if len(s) >= 4 {
				out = append(out, s)
			}
		}
		if dec, err := base64.StdEncoding.DecodeString(e.Auth); err == nil {
			if _, pass, ok := strings.Cut(string(dec), ":"); ok && len(pass) >= 4 {
				out = append(out, pass)
			}
		}
	}
	return out
}
