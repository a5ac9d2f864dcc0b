/*
 * A stand-in for Windows' bcryptprimitives.dll, for wine only (never shipped).
 *
 * Rust's standard library (1.78 and later) takes its random bytes from ProcessPrng, which
 * bcryptprimitives.dll exports on Windows 10 and later; wine 8.0 has no such DLL, so any Rust
 * binary for Windows fails to load under it. This DLL exports ProcessPrng over RtlGenRandom
 * (advapi32's SystemFunction036), which wine does implement. scripts/windows-toolchain.sh builds
 * it with mingw-w64 and copies it into the wine prefix's system32.
 */
#include <windows.h>

/* RtlGenRandom: declared here because it has no import-library name of its own. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* Fills `data` with `size` random bytes; always TRUE on Windows, FALSE here if wine fails. */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x10000000 ? 0x10000000 : (ULONG)size;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}
