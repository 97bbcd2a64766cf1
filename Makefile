# OCV developer and CI targets. `make help` lists them.
#
# CGO_ENABLED is set on every Go command: the PKCS#11 layer and -race need cgo, and the
# same setting everywhere keeps one warm build cache. Test targets clear every PG*
# variable so a developer's libpq settings cannot leak into pgx.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

# Go lives in /usr/local/go/bin on the dev and CI machines; PATH may not have it.
export PATH := $(PATH):/usr/local/go/bin
# go.mod names the toolchain (a Go release with the standard library's security fixes that
# govulncheck asks for); `auto` fetches it once through the Go module proxy when the local Go is
# older, whatever GOTOOLCHAIN the machine's Go defaults to (Debian's and go.dev's say `local`).
export GOTOOLCHAIN := auto

GO ?= go
GOFMT ?= gofmt
# Extra flags for `make test` (e.g. TESTFLAGS=-run=TestSeal) and its packages.
TESTFLAGS ?=
PKGS ?= ./...
# Arguments for the load generator (test/bench).
BENCH_ARGS ?=

# Linters, pinned and run straight from the Go module proxy (`go run pkg@version`: nothing to
# install, the build cache keeps them). staticcheck v0.8.x is the first line built for go 1.26.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOVULNCHECK := golang.org/x/vuln/cmd/govulncheck@v1.9.0
# govulncheck's database. vuln.go.dev may be out of reach (CI reaches only the module proxy), so
# scripts/vulndb builds an offline copy, once per snapshot, from this golang.org/x/vulndb module
# (its data/osv records). Move it on with VULNDB_VERSION=latest or a newer pseudo-version.
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018
VULNDB_DIR := .ocv/vulndb

# Go files that gofmt checks: everything except build output, local state and npm trees.
GO_FILES = find . \( -path ./.git -o -path ./.ocv -o -path ./bin -o -name node_modules -o -name testdata \) -prune -o -type f -name '*.go' -print0
UNSET_PG = for v in $$(compgen -e PG); do unset "$$v"; done;

.PHONY: all build run test test-unit bench lint gofmt-check vet staticcheck govulncheck fmt depcheck clean generate dev-env dev-stop help

all: lint depcheck build

help:
	@echo 'make build       build ocv-enclave, ocv-proxy and ocv into bin/'
	@echo 'make run         whole simulator stack: SoftHSM2, PostgreSQL, enclave, proxy (Ctrl-C stops it)'
	@echo 'make test        every test with -race, real SoftHSM2 and PostgreSQL (TESTFLAGS=, PKGS=)'
	@echo 'make test-unit   go test -race -short ./... (no backend set-up)'
	@echo 'make bench       load generator against the running stack (BENCH_ARGS=)'
	@echo 'make lint        gofmt-check, vet, staticcheck, govulncheck (each also a target; offline vuln DB in .ocv/vulndb)'
	@echo 'make fmt         gofmt -w'
	@echo 'make depcheck    import rules of DESIGN.md section 5'
	@echo 'make generate    nothing: api/openapi.yaml is hand-written'
	@echo 'make dev-env     prepare SoftHSM2 + PostgreSQL and print the environment'
	@echo 'make dev-stop    stop the private PostgreSQL cluster (data is kept in .ocv/)'
	@echo 'make clean       remove bin/ (never .ocv/: it holds the simulator tokens and database)'

build:
	@mkdir -p bin
	CGO_ENABLED=1 $(GO) build -o bin/ ./cmd/...

run:
	scripts/run.sh

test:
	@$(UNSET_PG) OCV_TEST_PKGS='$(PKGS)' scripts/test.sh $(TESTFLAGS)

test-unit:
	@$(UNSET_PG) CGO_ENABLED=1 $(GO) test -race -short $(TESTFLAGS) $(PKGS)

# scripts/bench.sh wins when someone adds it; otherwise the Go load generator runs against
# the stack that `make run` serves (base URL and CA in OCV_BENCH_URL / OCV_BENCH_CACERT).
bench:
	@if [[ -x scripts/bench.sh ]]; then \
		scripts/bench.sh $(BENCH_ARGS); \
	elif [[ -d test/bench ]]; then \
		OCV_BENCH_URL=$${OCV_BENCH_URL:-https://127.0.0.1:8443} \
		OCV_BENCH_CACERT=$${OCV_BENCH_CACERT:-.ocv/tls/ca.pem} \
		CGO_ENABLED=1 $(GO) run ./test/bench $(BENCH_ARGS); \
	else \
		echo 'make bench: no load generator yet (expected at test/bench or scripts/bench.sh)' >&2; \
		exit 1; \
	fi

# lint is four checks; `make -k lint` (CI) runs them all even when one fails. Each also runs alone.
lint: gofmt-check vet staticcheck govulncheck

gofmt-check:
	@out=$$($(GO_FILES) | xargs -0 -r $(GOFMT) -l); \
	if [[ -n $$out ]]; then echo 'gofmt: these files need `make fmt`:' >&2; echo "$$out" >&2; exit 1; fi

# go vet runs with -race so that it shares compiled dependencies with `make test`.
vet:
	CGO_ENABLED=1 $(GO) vet -race ./...

staticcheck:
	CGO_ENABLED=1 $(GO) run $(STATICCHECK) ./...

govulncheck:
	@CGO_ENABLED=1 $(GO) run ./scripts/vulndb -version '$(VULNDB_VERSION)' -out $(VULNDB_DIR)
	CGO_ENABLED=1 $(GO) run $(GOVULNCHECK) -db file://$(CURDIR)/$(VULNDB_DIR) ./...

fmt:
	@$(GO_FILES) | xargs -0 -r $(GOFMT) -w

depcheck:
	@CGO_ENABLED=1 scripts/depcheck.sh

generate:
	@echo 'make generate: nothing to do; api/openapi.yaml is hand-written (the contract), not generated.'

dev-env:
	@scripts/dev-env.sh

dev-stop:
	@scripts/dev-env.sh stop

clean:
	rm -rf bin
