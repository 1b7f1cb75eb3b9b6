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

package main

import (
	"flag"
	"testing"

	"k8s.io/client-go/rest"
)

func TestAPICompressionIsOffUnlessAsked(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		kubeconfig bool // the kubeconfig's disable-compression
		want       bool // DisableCompression of the config the manager uses
	}{
		{name: "default", want: true},
		{name: "asked for", args: []string{"--api-compression"}, want: false},
		{name: "asked for, the kubeconfig disables it", args: []string{"--api-compression"}, kubeconfig: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), tc.args)
			if err != nil {
				t.Fatal(err)
			}
			given := &rest.Config{Host: "https://127.0.0.1:6443", DisableCompression: tc.kubeconfig}
			if got := apiConfig(given, o).DisableCompression; got != tc.want {
				t.Errorf("DisableCompression = %v, want %v", got, tc.want)
			}
			if given.DisableCompression != tc.kubeconfig {
				t.Error("apiConfig changed the config it was given")
			}
		})
	}
}
