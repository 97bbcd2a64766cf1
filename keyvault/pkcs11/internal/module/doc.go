// Package module shares one loaded and initialised PKCS#11 module per path
// across every Store of the process, and initialises test tokens in-process.
//
// A PKCS#11 library is initialised once per process: a second C_Initialize
// answers CKR_CRYPTOKI_ALREADY_INITIALIZED, and C_Finalize ends every session
// of every user of the library. So Acquire counts references and the last
// Release finalises.
//
// Trust level: trusted (runs inside the enclave).
package module
