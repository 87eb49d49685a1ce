/**
 * What an EIP-712 message asks the signer to grant, recognised by its primary type and the
 * fields of that type (not by the domain's name): ERC-2612 `Permit`, DAI's `Permit` (`holder`,
 * `allowed`), and Permit2's `PermitSingle`, `PermitBatch`, `PermitTransferFrom`,
 * `PermitBatchTransferFrom` and their `…WitnessTransferFrom` forms. Anything else is `unknown`.
 *
 * Values arrive as wallets receive them for eth_signTypedData_v4: numbers as JSON numbers,
 * decimal strings or hex strings.
 *
 * @example
 * classifyTypedData(typedData) // { kind: 'permit2-single', grants: [{ token, amount, expiration, nonce }], spender, deadline, … }
 */
import type { Address } from 'viem'
import type { SignatureKind, TypedDataInput } from '../../types.js'

export interface Grant {
  token: Address
  amount: bigint
  /** Permit2 allowance expiration (unix seconds; 0: the block it is used in) */
  expiration?: bigint
  /** Permit2 allowance nonce (per owner, token and spender) */
  nonce?: bigint
}

export interface SignatureIntent {
  kind: SignatureKind
  owner?: Address
  spender?: Address
  grants: Grant[]
  /** the signature's own validity (deadline, sigDeadline, DAI expiry; undefined: none) */
  deadline?: bigint
  /** the nonce the signature consumes (ERC-2612, DAI, Permit2 transfer permits) */
  nonce?: bigint
  /** the contract that checks the signature (domain.verifyingContract) */
  verifier?: Address
}

const UNKNOWN: SignatureIntent = { kind: 'unknown', grants: [] }

const fieldNames = (data: TypedDataInput, type: string) =>
  (data.types[type] ?? [])
    .map((f) => f.name)
    .sort()
    .join(',')
const fieldType = (data: TypedDataInput, type: string, name: string) => data.types[type]?.find((f) => f.name === name)?.type

function uint(value: unknown): bigint | undefined {
  try {
    if (typeof value === 'bigint') return value
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
    if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value)
  } catch {
    /* not a number */
  }
  return undefined
}
function addr(value: unknown): Address | undefined {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? (value.toLowerCase() as Address) : undefined
}
const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

function permitDetails(v: unknown): Grant | undefined {
  const d = record(v)
  const token = addr(d?.token)
  const amount = uint(d?.amount)
  const expiration = uint(d?.expiration)
  const nonce = uint(d?.nonce)
  return token && amount !== undefined && expiration !== undefined && nonce !== undefined ? { token, amount, expiration, nonce } : undefined
}
function tokenPermissions(v: unknown): Grant | undefined {
  const d = record(v)
  const token = addr(d?.token)
  const amount = uint(d?.amount)
  return token && amount !== undefined ? { token, amount } : undefined
}
const all = <T>(items: (T | undefined)[]): T[] | undefined => (items.every((i) => i !== undefined) ? (items as T[]) : undefined)

export function classifyTypedData(data: TypedDataInput): SignatureIntent {
  const m = data.message
  const verifier = addr(data.domain.verifyingContract)
  const fields = fieldNames(data, data.primaryType)
  const spender = addr(m.spender)
  const base = { verifier, spender }
  switch (data.primaryType) {
    case 'Permit': {
      if (!verifier || !spender) return UNKNOWN
      if (fields === 'deadline,nonce,owner,spender,value') {
        const [owner, value, nonce, deadline] = [addr(m.owner), uint(m.value), uint(m.nonce), uint(m.deadline)]
        if (!owner || value === undefined || nonce === undefined || deadline === undefined) return UNKNOWN
        return { ...base, kind: 'erc2612', owner, grants: [{ token: verifier, amount: value }], deadline, nonce }
      }
      if (fields === 'allowed,expiry,holder,nonce,spender') {
        const [owner, nonce, expiry] = [addr(m.holder), uint(m.nonce), uint(m.expiry)]
        if (!owner || nonce === undefined || expiry === undefined || typeof m.allowed !== 'boolean') return UNKNOWN
        // DAI: allowed sets the allowance to uint256 max, not allowed to zero; expiry 0 never expires
        const amount = m.allowed ? 2n ** 256n - 1n : 0n
        return { ...base, kind: 'dai-permit', owner, grants: [{ token: verifier, amount }], ...(expiry !== 0n && { deadline: expiry }), nonce }
      }
      return UNKNOWN
    }
    case 'PermitSingle':
    case 'PermitBatch': {
      if (!verifier || !spender || fields !== 'details,sigDeadline,spender') return UNKNOWN
      const batch = data.primaryType === 'PermitBatch'
      if (fieldType(data, data.primaryType, 'details') !== (batch ? 'PermitDetails[]' : 'PermitDetails')) return UNKNOWN
      const grants = batch ? (Array.isArray(m.details) ? all(m.details.map(permitDetails)) : undefined) : all([permitDetails(m.details)])
      const deadline = uint(m.sigDeadline)
      if (!grants || deadline === undefined) return UNKNOWN
      return { ...base, kind: batch ? 'permit2-batch' : 'permit2-single', grants, deadline }
    }
    case 'PermitTransferFrom':
    case 'PermitWitnessTransferFrom':
    case 'PermitBatchTransferFrom':
    case 'PermitBatchWitnessTransferFrom': {
      const witness = data.primaryType.includes('Witness')
      const expected = witness ? 'deadline,nonce,permitted,spender,witness' : 'deadline,nonce,permitted,spender'
      if (!verifier || !spender || fields !== expected) return UNKNOWN
      const batch = data.primaryType.startsWith('PermitBatch')
      if (fieldType(data, data.primaryType, 'permitted') !== (batch ? 'TokenPermissions[]' : 'TokenPermissions')) return UNKNOWN
      const grants = batch ? (Array.isArray(m.permitted) ? all(m.permitted.map(tokenPermissions)) : undefined) : all([tokenPermissions(m.permitted)])
      const [nonce, deadline] = [uint(m.nonce), uint(m.deadline)]
      if (!grants || nonce === undefined || deadline === undefined) return UNKNOWN
      return { ...base, kind: batch ? 'permit2-batch-transfer' : 'permit2-transfer', grants, deadline, nonce }
    }
  }
  return UNKNOWN
}
