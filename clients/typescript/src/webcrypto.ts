/**
 * The runtime's Web Crypto: the global `crypto` (Node 19+, Deno, Bun, browsers, workers), or on
 * Node 18, where the global needs a flag, Node's own `webcrypto` object.
 */
type WebCrypto = typeof globalThis.crypto;

let cached: WebCrypto | undefined;

export async function webcrypto(): Promise<WebCrypto> {
  if (cached) return cached;
  const global = (globalThis as { crypto?: WebCrypto }).crypto;
  if (global?.subtle && typeof global.randomUUID === "function") {
    cached = global;
    return global;
  }
  // The specifier is a variable so that bundlers for other runtimes leave it alone.
  const name = "node:crypto";
  const module = (await import(name)) as { webcrypto: WebCrypto };
  cached = module.webcrypto;
  return cached;
}
