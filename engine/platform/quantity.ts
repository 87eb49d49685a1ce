/**
 * JSON-RPC quantities: `toQuantity(26n)` → `0x1a`, `toQuantity(0)` → `0x0`. Defined in
 * tracers/evmWords.ts, the lowest layer (tracers/ import nothing above them), and re-exported here
 * for the rest of the engine and the host.
 */
export { toQuantity } from '../../tracers/evmWords.js'
