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
	"io"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// setLogger gives controller-runtime, whose clients and caches the commands use, a logger that prints its
// INFO and higher lines (API warnings, errors) to stderr, as text and without stack traces: without one,
// controller-runtime prints that log.SetLogger was never called, with a stack trace, 30 s into a command
// such as `siteops dashboard`.
func setLogger(stderr io.Writer) {
	ctrl.SetLogger(zap.New(zap.WriteTo(stderr), zap.Level(zapcore.InfoLevel), zap.ConsoleEncoder(),
		zap.StacktraceLevel(zapcore.PanicLevel)))
}
