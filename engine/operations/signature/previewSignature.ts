/**
 * What an EIP-712 signature gives away (docs/wallet-preview.md "Signatures"): the message is
 * classified (classify.ts), then its effect is simulated from the signer's side — no signature is
 * needed, since the signer's own `approve` (ERC-2612, DAI) or Permit2 `approve` (PermitSingle,
 * PermitBatch) leaves the very allowance the permit would — followed by the spender moving
 * everything it would then be allowed to move from the signer (at most the balance, and through
 * Permit2 at most what the signer allows Permit2). A Permit2 transfer permit creates no
 * allowance: its effect is the signer sending the permitted amounts to the spender.
 * The approval changes are read after the granting calls alone, the asset changes after the spender
 * took its share (both /simulate's engine, with traceAssetChanges, run side by side), plus the signature's own: SIGNER_MISMATCH, WRONG_CHAIN,
 * SIGNATURE_EXPIRED, NONCE_USED.
 *
 * @example
 * await previewSignature(deps, { typedData, signer, block: { tag: 'latest' } })
 */
import { encodeFunctionData, parseAbi, recoverTypedDataAddress, toHex, type Address, type Hex } from 'viem'
import { executeCall } from '../../execution/executeTransaction.js'
import type { CallInput } from '../../execution/types.js'
import { createStateBalanceReader } from '../../execution/observers/index.js'
import { openRun } from '../../run/index.js'
import type { RunDeps } from '../../run/index.js'
import type { PreviewWarning, SignaturePreview, SignaturePreviewParams, SimulateParams, SimulationResult, TypedDataInput } from '../../types.js'
import { warning } from '../../wallet/warnings.js'
import { classifyTypedData, type SignatureIntent } from './classify.js'

const ABI = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function nonces(address owner) view returns (uint256)',
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function transferFrom(address from, address to, uint160 amount, address token)',
  'function allowance(address owner, address token, address spender) view returns (uint160, uint48, uint48)',
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
])
const MAX_UINT160 = (1n << 160n) - 1n
const MAX_UINT256 = (1n << 256n) - 1n

const enc = (fn: string, args: unknown[]) => encodeFunctionData({ abi: ABI, functionName: fn as 'approve', args: args as never })
const min = (...v: bigint[]) => v.reduce((a, b) => (b < a ? b : a))

/** the signer's own transactions that leave the allowances the signature would */
function grantingCalls(intent: SignatureIntent, signer: Address): CallInput[] {
  const { kind, verifier, spender } = intent
  if (!verifier || !spender) return []
  if (kind === 'erc2612' || kind === 'dai-permit') return [{ from: signer, to: verifier, data: enc('approve', [spender, intent.grants[0]!.amount]) }]
  if (kind === 'permit2-single' || kind === 'permit2-batch')
    return intent.grants.map((g) => ({ from: signer, to: verifier, data: enc('approve', [g.token, spender, g.amount, Number(g.expiration)]) }))
  return []
}

/** uint/int fields as bigints, as viem hashes them (wallets send decimal or hex strings) */
function forHashing(types: TypedDataInput['types'], type: string, value: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(type)
  if (array) return Array.isArray(value) ? value.map((v) => forHashing(types, array[1]!, v)) : value
  if (types[type] && typeof value === 'object' && value !== null)
    return Object.fromEntries(types[type]!.map((f) => [f.name, forHashing(types, f.type, (value as Record<string, unknown>)[f.name])]))
  if (/^u?int\d*$/.test(type) && (typeof value === 'string' || typeof value === 'number')) {
    try {
      return BigInt(value)
    } catch {
      return value
    }
  }
  return value
}

async function recovers(data: TypedDataInput, signer: Address, signature: Hex): Promise<boolean> {
  try {
    const { EIP712Domain: _, ...types } = data.types
    const domainType = data.types.EIP712Domain
    const domain = domainType ? (forHashing(data.types, 'EIP712Domain', data.domain) as Record<string, unknown>) : data.domain
    const message = forHashing(types, data.primaryType, data.message) as Record<string, unknown>
    const recovered = await recoverTypedDataAddress({ domain, types, primaryType: data.primaryType, message, signature } as never)
    return recovered.toLowerCase() === signer.toLowerCase()
  } catch {
    return false
  }
}

/**
 * What a signature preview runs on: a chain's state, and the simulation its effect is measured
 * with (the facade hands in its own `simulate`: one operation never imports another)
 */
export interface SignaturePreviewDeps extends Pick<RunDeps, 'chain' | 'cache' | 'gasCap' | 'simulationTtlSeconds'> {
  simulate(params: SimulateParams): Promise<SimulationResult>
}

/**
 * What signing `params.typedData` would let its spender do: the intent read from the message,
 * warnings about the signature itself, the chain's balances, allowances and nonces now, then the
 * grant and the spender's taking simulated on the same block.
 */
export async function previewSignature(deps: SignaturePreviewDeps, params: SignaturePreviewParams): Promise<SignaturePreview> {
  const signer = params.signer.toLowerCase() as Address
  const intent = classifyTypedData(params.typedData)
  const granting = grantingCalls(intent, signer)
  const { header, ctx } = await openRun(deps.chain, { block: params.block, calls: granting })
  const read = createStateBalanceReader(ctx, executeCall)
  const word = async (to: Address, data: Hex, index = 0) => {
    const out = await read.call(to, data)
    return out && out.length >= 2 + 64 * (index + 1) ? BigInt(`0x${out.slice(2 + 64 * index, 2 + 64 * (index + 1))}`) : undefined
  }
  const permit2 = intent.kind.startsWith('permit2')
  const { verifier, spender } = intent
  const warnings = await signatureWarnings(deps.chain.chainId, params, intent, signer, ctx.block.timestamp)

  // what the chain holds now: balances, what Permit2 may move, nonces
  const [balances, toPermit2, nonceUsed] = await Promise.all([
    Promise.all(intent.grants.map((g) => word(g.token, enc('balanceOf', [signer])))),
    Promise.all(intent.grants.map((g) => (permit2 && verifier ? word(g.token, enc('allowance', [signer, verifier])) : Promise.resolve(MAX_UINT256)))),
    nonceIsUsed(intent, signer, word),
  ])
  if (nonceUsed) warnings.push(warning('NONCE_USED', 'the nonce of this signature is used already: it cannot be used as signed', -1, { account: signer }))

  const preview = previewOf(intent, params, header.number, permit2, warnings)
  if (intent.kind === 'unknown' || !verifier || !spender) return preview
  const taking = takingCalls(intent, signer, { spender, verifier }, balances, toPermit2, ctx.block.timestamp)
  await measureEffect(deps, preview, signer, header.number, granting, taking)
  return preview
}

/** what is wrong with the signature itself: another chain's domain, another signer, a deadline past */
async function signatureWarnings(
  chainId: number,
  params: SignaturePreviewParams,
  intent: SignatureIntent,
  signer: Address,
  timestamp: bigint,
): Promise<PreviewWarning[]> {
  const warnings: PreviewWarning[] = []
  const domainChain = params.typedData.domain.chainId
  if (domainChain !== undefined && BigInt(domainChain as string) !== BigInt(chainId))
    warnings.push(
      warning(
        'WRONG_CHAIN',
        `the domain's chain id ${BigInt(domainChain as string)} is not this chain's (${chainId}): the signature may be replayed where it is valid`,
        -1,
      ),
    )
  if (params.signature && !(await recovers(params.typedData, signer, params.signature)))
    warnings.push(warning('SIGNER_MISMATCH', `the signature does not recover to ${signer} under this domain`, -1, { account: signer }))
  if (intent.owner && intent.owner !== signer)
    warnings.push(warning('SIGNER_MISMATCH', `the message's owner ${intent.owner} is not the signer ${signer}`, -1, { account: signer }))
  if (intent.deadline !== undefined && intent.deadline < timestamp)
    warnings.push(warning('SIGNATURE_EXPIRED', `the signature's deadline ${intent.deadline} is before the block's time ${timestamp}`, -1))
  return warnings
}

/** the preview of what the message grants, before its effect is measured */
function previewOf(
  intent: SignatureIntent,
  params: SignaturePreviewParams,
  blockNumber: bigint,
  permit2: boolean,
  warnings: PreviewWarning[],
): SignaturePreview {
  return {
    kind: intent.kind,
    blockNumber: toHex(blockNumber),
    tokens: intent.grants.map((g) => g.token),
    spender: intent.spender ?? null,
    amounts: intent.grants.map((g) => toHex(g.amount)),
    unlimited: intent.grants.some((g) => g.amount >= (permit2 ? MAX_UINT160 : 1n << 255n)),
    ...(intent.deadline !== undefined && { deadline: toHex(intent.deadline) }),
    ...(intent.grants.some((g) => g.expiration !== undefined) && {
      expiration: toHex(intent.grants.reduce((e, g) => (g.expiration !== undefined && g.expiration > e ? g.expiration : e), 0n)),
    }),
    ...(intent.nonce !== undefined && { nonce: toHex(intent.nonce) }),
    ...(intent.kind === 'unknown' && { domain: params.typedData.domain, message: params.typedData.message }),
    approvalChanges: [],
    assetChanges: [],
    warnings,
  }
}

/** the spender then takes what it may: at most the signer's balance (and Permit2's allowance) */
function takingCalls(
  intent: SignatureIntent,
  signer: Address,
  { spender, verifier }: { spender: Address; verifier: Address },
  balances: (bigint | undefined)[],
  toPermit2: (bigint | undefined)[],
  timestamp: bigint,
): CallInput[] {
  const taking: CallInput[] = []
  intent.grants.forEach((g, i) => {
    const amount = min(g.amount, balances[i] ?? 0n, toPermit2[i] ?? 0n)
    if (amount === 0n) return
    if (intent.kind === 'erc2612' || intent.kind === 'dai-permit')
      taking.push({ from: spender, to: g.token, data: enc('transferFrom', [signer, spender, amount]) })
    else if (intent.kind === 'permit2-single' || intent.kind === 'permit2-batch') {
      const live = g.expiration === 0n || (g.expiration ?? 0n) >= timestamp
      if (live) taking.push({ from: spender, to: verifier, data: enc('transferFrom', [signer, spender, amount, g.token]) })
    } else taking.push({ from: signer, to: g.token, data: enc('transfer', [spender, amount]) })
  })
  return taking
}

/**
 * Two runs on the same block, side by side: the allowances as the signature leaves them, and
 * what the spender takes (which may spend those allowances down again). The calls are the
 * preview's own, not the caller's: no call index to point at.
 */
async function measureEffect(
  deps: SignaturePreviewDeps,
  preview: SignaturePreview,
  signer: Address,
  blockNumber: bigint,
  granting: CallInput[],
  taking: CallInput[],
): Promise<void> {
  const run = (calls: CallInput[]) =>
    calls.length === 0
      ? Promise.resolve(undefined)
      : deps.simulate({ calls, block: { number: blockNumber }, validation: false, account: signer, traceAssetChanges: true, traceTransfers: false })
  const [granted, taken] = await Promise.all([run(granting), run([...granting, ...taking])])
  preview.approvalChanges = (granted?.approvalChanges ?? []).map((c) => ({ ...c, callIndex: -1 }))
  preview.assetChanges = (taken?.assetChanges ?? []).filter((c) => c.type !== 'native')
  const fromGrant = (granted?.warnings ?? []).filter((w) => w.code !== 'ASSETS_OUT_NOTHING_IN')
  const fromTaking = (taken?.warnings ?? []).filter((w) => w.code === 'ASSETS_OUT_NOTHING_IN' || w.code === 'REVERTED')
  preview.warnings.push(...[...fromGrant, ...fromTaking].map((w) => ({ ...w, callIndex: -1 })))
}

/** true when the chain shows the signature's nonce consumed */
async function nonceIsUsed(
  intent: SignatureIntent,
  signer: Address,
  word: (to: Address, data: Hex, i?: number) => Promise<bigint | undefined>,
): Promise<boolean> {
  const { verifier, spender } = intent
  if (!verifier) return false
  switch (intent.kind) {
    case 'erc2612':
    case 'dai-permit': {
      const current = await word(verifier, enc('nonces', [intent.owner ?? signer]))
      return current !== undefined && intent.nonce! < current
    }
    case 'permit2-single':
    case 'permit2-batch': {
      const current = await Promise.all(intent.grants.map((g) => word(verifier, enc('allowance', [signer, g.token, spender!]), 2)))
      return intent.grants.some((g, i) => current[i] !== undefined && g.nonce! < current[i]!)
    }
    case 'permit2-transfer':
    case 'permit2-batch-transfer': {
      const bitmap = await word(verifier, enc('nonceBitmap', [signer, intent.nonce! >> 8n]))
      return bitmap !== undefined && ((bitmap >> (intent.nonce! & 0xffn)) & 1n) === 1n
    }
  }
  return false
}
