/** The package's version; scripts/build.mjs checks it equals package.json's. */
export const VERSION = "0.1.0";
