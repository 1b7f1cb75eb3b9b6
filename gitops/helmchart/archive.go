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
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// MaxChartBytes is the most a chart's files, together, may hold, in memory or unpacked from an archive.
const MaxChartBytes = 20 << 20

// LoadArchive unpacks a chart archive (.tgz) into its files, paths relative to the chart root: the archive's single
// top directory is stripped, as Helm does. It refuses entries that escape the root, links, and more than
// MaxChartBytes unpacked.
func LoadArchive(b []byte) (map[string][]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("helm chart archive: %w", err)
	}
	defer func() { _ = gz.Close() }()
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	total := int64(0)
	top := ""
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("helm chart archive: %w", err)
		}
		dir, name, err := entryName(h)
		if err != nil {
			return nil, err
		}
		if name == "" {
			continue
		}
		if top == "" {
			top = dir
		} else if dir != top {
			return nil, fmt.Errorf("helm chart archive: entry %q is outside the chart's directory %q", h.Name, top)
		}
		total += h.Size
		if h.Size < 0 || total > MaxChartBytes {
			return nil, fmt.Errorf("helm chart archive: unpacks to more than %d bytes", MaxChartBytes)
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size+1))
		if err != nil {
			return nil, fmt.Errorf("helm chart archive: %s: %w", h.Name, err)
		}
		if int64(len(data)) != h.Size {
			return nil, fmt.Errorf("helm chart archive: %s: size does not match its header", h.Name)
		}
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("helm chart archive: %s appears twice", h.Name)
		}
		files[name] = data
	}
	return files, nil
}

// entryName checks one tar entry and returns the archive's top directory and the entry's path below it, or "" for
// a directory.
func entryName(h *tar.Header) (string, string, error) {
	raw := strings.ReplaceAll(h.Name, `\`, "/")
	if path.IsAbs(raw) || strings.Contains(raw, ":") {
		return "", "", fmt.Errorf("helm chart archive: entry %q is an absolute path", h.Name)
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", "", fmt.Errorf("helm chart archive: entry %q escapes the chart root", h.Name)
		}
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return "", "", nil
	case tar.TypeReg:
	case tar.TypeSymlink, tar.TypeLink:
		return "", "", fmt.Errorf("helm chart archive: entry %q is a link", h.Name)
	case tar.TypeXGlobalHeader, tar.TypeXHeader:
		return "", "", nil
	default:
		return "", "", fmt.Errorf("helm chart archive: entry %q is not a regular file", h.Name)
	}
	clean := path.Clean(raw)
	top, rest, found := strings.Cut(clean, "/")
	if !found || top == "." || rest == "" {
		return "", "", fmt.Errorf("helm chart archive: entry %q is not inside the chart's directory", h.Name)
	}
	return top, rest, nil
}
