// Package keyvault defines the contract between OCV and wherever its keys
// live: KeyStore, the optional KeyWrapper capability and DigestSigner.
//
// Trust level: shared contract. It imports only the standard library.
package keyvault
