/**
 * Per-fork tables the ethereumjs EVM rebuilds on every construction, kept once instead.
 *
 * A fresh VM per request is what keeps requests apart (one shared VM gives wrong gas under
 * concurrency), but its constructor rebuilds the whole opcode table for the fork
 * (`getActiveOpcodes` → `getOpcodesForHF` → `createOpcodes`), and every message that jumps runs
 * the jump-destination analysis of its code again. Both depend only on the fork (and the code),
 * never on the state, so:
 * - `EVM.prototype.getActiveOpcodes` keeps the tables per (chain, fork, EIPs, parameter set) — the
 *   key `preparedCommon` already uses; an EVM with custom opcodes keeps ethereumjs' own path;
 * - `Interpreter.prototype._getValidJumpDestinations` keeps its answer per (opcode table, code
 *   bytes). Code bytes come from the state layers' caches, the same array for the same code;
 *   a different array is a miss, never a wrong answer.
 * The tables are read-only during execution (ethereumjs indexes into them), so sharing is safe.
 *
 * Both are private API, pinned by the exact @ethereumjs versions in package.json;
 * `test/engine/execution/evmTables.test.ts` fails if an upgrade moves them.
 */
import { EVM } from '@ethereumjs/evm'
import { interpreterPrototype } from './interpreterModule.js'

interface OpcodeTables {
  _opcodes: unknown
  _dynamicGasHandlers: unknown
  _handlers: unknown
  _opcodeMap: object
}

interface EvmInternals extends OpcodeTables {
  common: { chainId(): bigint; hardfork(): string; eips(): number[]; _params: object }
  _customOpcodes?: unknown
  getActiveOpcodes(): unknown
}

interface InterpreterInternals {
  _evm: { _opcodeMap?: object }
  _getValidJumpDestinations(code: Uint8Array): unknown
}

/** whether both patches are in place (asserted by a test) */
export const evmTablesInstalled = { opcodes: false, jumpDestinations: false }

function installOpcodeTables(): void {
  const proto = EVM.prototype as unknown as EvmInternals
  if (typeof proto.getActiveOpcodes !== 'function') return
  const stock = proto.getActiveOpcodes
  const byParams = new WeakMap<object, Map<string, OpcodeTables>>()
  proto.getActiveOpcodes = function (this: EvmInternals) {
    if (this._customOpcodes !== undefined) return stock.call(this)
    const key = `${this.common.chainId()}|${this.common.hardfork()}|${this.common.eips().join(',')}`
    let forks = byParams.get(this.common._params)
    if (!forks) byParams.set(this.common._params, (forks = new Map()))
    let tables = forks.get(key)
    if (!tables) {
      stock.call(this)
      tables = { _opcodes: this._opcodes, _dynamicGasHandlers: this._dynamicGasHandlers, _handlers: this._handlers, _opcodeMap: this._opcodeMap }
      forks.set(key, tables)
    }
    this._opcodes = tables._opcodes
    this._dynamicGasHandlers = tables._dynamicGasHandlers
    this._handlers = tables._handlers
    this._opcodeMap = tables._opcodeMap
    return tables._opcodes
  }
  evmTablesInstalled.opcodes = true
}

async function installJumpDestinations(): Promise<void> {
  const proto = (await interpreterPrototype()) as InterpreterInternals | undefined
  if (!proto || typeof proto._getValidJumpDestinations !== 'function') return
  const stock = proto._getValidJumpDestinations
  const byTable = new WeakMap<object, WeakMap<Uint8Array, unknown>>()
  proto._getValidJumpDestinations = function (this: InterpreterInternals, code: Uint8Array) {
    const table = this._evm._opcodeMap
    if (!table) return stock.call(this, code)
    let byCode = byTable.get(table)
    if (!byCode) byTable.set(table, (byCode = new WeakMap()))
    let analysis = byCode.get(code)
    if (analysis === undefined) {
      analysis = stock.call(this, code)
      byCode.set(code, analysis)
    }
    return analysis
  }
  evmTablesInstalled.jumpDestinations = true
}

installOpcodeTables()
await installJumpDestinations()
