import { describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { createCodeChangesTracer } from '../../../engine/observers/codeChanges.js'
import type { CallType } from '../../../tracers/types.js'

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Address
const X = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
const Y = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512' as Address
const Z = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0' as Address
const enter = (depth: number, type: CallType, to: Address) => ({ depth, type, from: A, to, input: '0x' as const, gas: 1n, value: 0n })
const exit = (depth: number, reverted = false) => ({ depth, output: '0x' as const, gasUsed: 1n, reverted })

describe('code changes tracer', () => {
  it('keeps creations of successful frames at any depth, in creation order', () => {
    const t = createCodeChangesTracer()
    t.onEnter(enter(0, 'CALL', X))
    t.onEnter(enter(1, 'CREATE2', Y))
    t.onEnter(enter(2, 'CREATE', Z))
    t.onExit(exit(2))
    t.onExit(exit(1))
    t.onExit(exit(0))
    expect(t.result()).toEqual([Y, Z])
  })

  it('drops creations undone by a revert of the frame or an ancestor', () => {
    const t = createCodeChangesTracer()
    t.onEnter(enter(0, 'CALL', X))
    t.onEnter(enter(1, 'CALL', Y))
    t.onEnter(enter(2, 'CREATE', Z))
    t.onExit(exit(2))
    t.onExit(exit(1, true))
    t.onExit(exit(0))
    expect(t.result()).toEqual([])
    const top = createCodeChangesTracer()
    top.onEnter(enter(0, 'CREATE', X))
    top.onExit(exit(0, true))
    expect(top.result()).toEqual([])
  })

  it('counts self-destructed accounts and EIP-7702 authorities', () => {
    const t = createCodeChangesTracer()
    t.onTxStart({ authorities: [Z] } as never)
    t.onEnter(enter(0, 'CALL', X))
    t.onEnter({ ...enter(1, 'SELFDESTRUCT', A), from: Y })
    t.onExit(exit(1))
    t.onExit(exit(0, true)) // the call reverts: the self-destruct is undone, the authorization is not
    expect(t.result()).toEqual([Z])
    const ok = createCodeChangesTracer()
    ok.onEnter(enter(0, 'CALL', X))
    ok.onEnter({ ...enter(1, 'SELFDESTRUCT', A), from: Y })
    ok.onExit(exit(1))
    ok.onExit(exit(0))
    expect(ok.result()).toEqual([Y])
  })
})
