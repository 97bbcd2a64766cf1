// Package softhsmtest gives tests a fresh SoftHSM2 token per call.
//
// SoftHSM reads SOFTHSM2_CONF once, at C_Initialize, and scans its token
// directory only then. So the package keeps one token directory and config
// for the whole test process (SOFTHSM2_CONF is set with os.Setenv on first
// use, which unlike t.Setenv allows t.Parallel), and initialises each new
// token through the module itself (C_InitToken + C_InitPIN), which SoftHSM
// makes visible at once even while other Stores have the module open. A
// token made by softhsm2-util would stay invisible until every Store of the
// process was closed.
//
// The directory is removed when the last test that asked for a token has
// finished and no Store holds the module any more.
//
// Trust level: test only.
package softhsmtest
