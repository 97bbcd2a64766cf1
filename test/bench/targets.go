package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// targets is what the selected scenarios run against. Parts that no
// selected scenario needs stay nil.
type targets struct {
	c     *client      // the stack's API and the bench user; nil when only hsmraw runs
	proto string       // the protocol the stack answered over
	sec   *secrets     // write, read
	sig   *agentSigner // personalsign, txsign
	hsm   *hsmBench    // hsmraw
}

// needsStack reports whether a scenario in names talks to the stack.
func needsStack(names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return n != "hsmraw" })
}

// needsSigner reports whether a scenario in names signs through the Intents API.
func needsSigner(names []string) bool {
	return slices.Contains(names, "personalsign") || slices.Contains(names, "txsign")
}

// setUp prepares the targets of cfg's scenarios: the private SoftHSM2 token
// first (no network, and SOFTHSM2_CONF must be set before anything opens
// the module), then the stack's user, vault, read keys and signing agent.
// Background token renewal runs until runCtx ends. On error, what was
// opened is closed.
func setUp(setupCtx, runCtx context.Context, cfg config, hc *http.Client) (_ *targets, err error) {
	t := &targets{proto: "not contacted"}
	defer func() {
		if err != nil {
			err = errors.Join(err, t.Close())
		}
	}()
	if slices.Contains(cfg.scenarios, "hsmraw") {
		logf("opening a private SoftHSM2 token (%d sessions) for hsmraw", hsmSessions)
		if t.hsm, err = openHSM(setupCtx, cfg.softhsmModule); err != nil {
			return nil, err
		}
	}
	if !needsStack(cfg.scenarios) {
		return t, nil
	}
	c := &client{http: hc, base: cfg.target.String()}
	if t.proto, err = c.health(setupCtx); err != nil {
		return nil, err
	}
	logf("stack at %s answers over %s; signing up a bench user", c.base, t.proto)
	ttl, err := c.setup(setupCtx)
	if err != nil {
		return nil, err
	}
	t.c = c
	go c.keepToken(runCtx, ttl)

	if t.sec, err = newSecrets(c, cfg.valueSize, cfg.readKeys); err != nil {
		return nil, err
	}
	if slices.Contains(cfg.scenarios, "read") || slices.Contains(cfg.scenarios, h2floodName) {
		logf("writing %d secrets for the read scenario", cfg.readKeys)
		if err := t.sec.prewrite(setupCtx, hc, max(slices.Max(cfg.concurrency), minPrewriters)); err != nil {
			return nil, err
		}
	}
	if needsSigner(cfg.scenarios) {
		logf("creating the signing agent and its ethereum key")
		sig, ttl, err := newAgentSigner(setupCtx, c)
		if err != nil {
			return nil, err
		}
		t.sig = sig
		go sig.keepToken(runCtx, ttl)
	}
	return t, nil
}

// scenario returns the named scenario (one of knownScenarios); setUp has
// prepared what it needs.
func (t *targets) scenario(name string) (scenario, error) {
	switch name {
	case "write":
		return t.sec.write(), nil
	case "read":
		return t.sec.read(), nil
	case "health":
		return t.c.healthScenario(), nil
	case "authget":
		return t.c.authGetScenario(), nil
	case "personalsign":
		return t.sig.personalSign(), nil
	case "txsign":
		return t.sig.txSign(), nil
	case "hsmraw":
		return t.hsm.scenario(), nil
	case h2floodName:
		return t.h2flood()
	default:
		return scenario{}, fmt.Errorf("%w: unknown scenario %q", ErrInvalidFlag, name)
	}
}

// Close releases the HSM token, if one was opened.
func (t *targets) Close() error {
	if t.hsm == nil {
		return nil
	}
	return t.hsm.Close()
}
