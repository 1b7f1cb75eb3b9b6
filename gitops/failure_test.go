package gitops

import (
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
)

func TestFailureReasonFollowsTheErrorChain(t *testing.T) {
	cases := map[string]struct {
		err  error
		want FailureReason
	}{
		"plaintext, wrapped":  {fmt.Errorf("site prod: %w", failed(FailurePlaintextSecret, errors.New("secret"))), FailurePlaintextSecret},
		"guard refusal":       {&guardError{msg: `"../x" leaves the checkout`}, FailureGuardRefused},
		"wrapped guard":       {fmt.Errorf("reading: %w", &guardError{msg: "remote"}), FailureGuardRefused},
		"any other build err": {errors.New("kustomize build overlays/prod: no matches"), FailureKustomize},
		"explicit reason":     {failed(FailureNotPublished, errors.New("push failed")), FailureNotPublished},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(failureReason(tc.err)).To(Equal(tc.want))
		})
	}
}
