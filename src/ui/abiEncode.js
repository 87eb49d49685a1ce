// Calldata from a function signature and JSON arguments, in the browser: the ABI head/tail
// encoding for elementary types, bytes, string and arrays (tuples: give the data instead).
// keccak-256 comes from @noble/hashes, served by the service from its npm package.
import { keccak_256 } from './noble/sha3.js'

const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const word = (n) => BigInt.asUintN(256, n).toString(16).padStart(64, '0')

/** "transfer(address,uint256)" → {name, types}; throws on tuples */
export function parseSignature(sig) {
  const m = /^\s*([A-Za-z_$][\w$]*)\s*\((.*)\)\s*$/.exec(sig)
  if (!m) throw new Error(`not a function signature: ${sig}`)
  if (m[2].includes('(')) throw new Error('tuple parameters are not supported here: give the calldata in Data')
  const types = m[2].trim() === '' ? [] : m[2].split(',').map((t) => t.trim().split(/\s+/)[0])
  return { name: m[1], types }
}

export function selectorOf(name, types) {
  return toHex(keccak_256(new TextEncoder().encode(`${name}(${types.join(',')})`)).slice(0, 4))
}

const arrayOf = (t) => /^(.*)\[(\d*)\]$/.exec(t)
function isDynamic(t) {
  if (t === 'bytes' || t === 'string') return true
  const a = arrayOf(t)
  return a ? a[2] === '' || isDynamic(a[1]) : false
}

function encodeList(types, values) {
  if (!Array.isArray(values) || values.length !== types.length)
    throw new Error(`expected ${types.length} argument(s), got ${Array.isArray(values) ? values.length : 'no array'}`)
  const heads = []
  const tails = []
  let tailLen = 0
  const headLen = types.length * 32
  types.forEach((t, i) => {
    const enc = encodeOne(t, values[i])
    if (isDynamic(t)) {
      heads.push(word(BigInt(headLen + tailLen)))
      tails.push(enc)
      tailLen += enc.length / 2
    } else heads.push(enc)
  })
  return heads.join('') + tails.join('')
}

function encodeBytes(hex) {
  const body = hex.replace(/^0x/, '')
  if (!/^([0-9a-fA-F]{2})*$/.test(body)) throw new Error(`not hex bytes: ${hex}`)
  const padded = body.padEnd(Math.ceil(body.length / 64) * 64, '0')
  return word(BigInt(body.length / 2)) + padded
}

function encodeOne(t, v) {
  const a = arrayOf(t)
  if (a) {
    if (!Array.isArray(v)) throw new Error(`${t} expects a JSON array`)
    const inner = encodeList(
      v.map(() => a[1]),
      v,
    )
    if (a[2] === '') return word(BigInt(v.length)) + inner
    if (v.length !== Number(a[2])) throw new Error(`${t} expects ${a[2]} elements`)
    return inner
  }
  const int = /^(u?)int(\d*)$/.exec(t)
  if (int) {
    const bits = BigInt(int[2] || 256)
    const n = BigInt(v)
    const min = int[1] ? 0n : -(1n << (bits - 1n))
    const max = int[1] ? (1n << bits) - 1n : (1n << (bits - 1n)) - 1n
    if (n < min || n > max) throw new Error(`${v} is out of range for ${t}`)
    return word(n)
  }
  if (t === 'address') {
    if (!/^0x[0-9a-fA-F]{40}$/.test(v)) throw new Error(`not an address: ${v}`)
    return v.slice(2).toLowerCase().padStart(64, '0')
  }
  if (t === 'bool') return word(v === true || v === 'true' || v === 1 ? 1n : 0n)
  const fixed = /^bytes(\d+)$/.exec(t)
  if (fixed) {
    const body = String(v).replace(/^0x/, '')
    if (body.length !== Number(fixed[1]) * 2) throw new Error(`${t} expects ${fixed[1]} bytes`)
    return body.toLowerCase().padEnd(64, '0')
  }
  if (t === 'bytes') return encodeBytes(String(v))
  if (t === 'string') return encodeBytes(toHex(new TextEncoder().encode(String(v))))
  throw new Error(`unsupported type ${t}`)
}

/** 0x calldata for the signature and its arguments */
export function encodeCall(signature, args) {
  const { name, types } = parseSignature(signature)
  return `0x${selectorOf(name, types)}${encodeList(types, args)}`
}

/** the signature of a function named `name` in an ABI (JSON items or "function …" strings) */
export function findInAbi(abi, name) {
  for (const item of abi ?? []) {
    if (typeof item === 'string') {
      const m = /^\s*function\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)/.exec(item)
      if (m && m[1] === name)
        return `${name}(${m[2]
          .split(',')
          .map((p) => p.trim().split(/\s+/)[0])
          .filter(Boolean)
          .join(',')})`
    } else if (item?.type === 'function' && item.name === name) {
      if (item.inputs.some((i) => i.type.startsWith('tuple'))) throw new Error('tuple parameters are not supported here: give the calldata in Data')
      return `${name}(${item.inputs.map((i) => i.type).join(',')})`
    }
  }
  return undefined
}
