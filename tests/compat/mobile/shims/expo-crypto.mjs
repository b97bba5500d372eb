import crypto from 'node:crypto'
export function getRandomBytes(n) { return new Uint8Array(crypto.randomBytes(n)) }
