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

package helmchart

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

type entry struct {
	name, body string
	flag       byte
}

func tgz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: e.flag}
		if e.flag == tar.TypeSymlink {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.flag == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadArchive(t *testing.T) {
	files, err := LoadArchive(tgz(t,
		entry{"c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n", tar.TypeReg},
		entry{"c/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", tar.TypeReg}))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.Contains(string(files["templates/cm.yaml"]), "ConfigMap") {
		t.Fatalf("files = %v", files)
	}
	out, err := New().Render(files, Spec{}, "")
	if err != nil || !strings.Contains(string(out), "name: x") {
		t.Fatalf("render: %v\n%s", err, out)
	}
}

func TestLoadArchiveRefuses(t *testing.T) {
	cases := map[string]entry{
		"escapes":  {"c/../x", "x", tar.TypeReg},
		"absolute": {"/c/x", "x", tar.TypeReg},
		"link":     {"c/l", "", tar.TypeSymlink},
		"hardlink": {"c/h", "", tar.TypeLink},
		"other":    {"d/x", "x", tar.TypeReg},
	}
	for name, e := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadArchive(tgz(t, entry{"c/Chart.yaml", "name: c\n", tar.TypeReg}, e)); err == nil {
				t.Fatalf("%q was accepted", e.name)
			}
		})
	}
}

func TestLoadArchiveRefusesBomb(t *testing.T) {
	big := strings.Repeat("a", MaxChartBytes/2+1)
	_, err := LoadArchive(tgz(t, entry{"c/a", big, tar.TypeReg}, entry{"c/b", big, tar.TypeReg}))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("got %v", err)
	}
}
