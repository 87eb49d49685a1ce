/** Contracts' sources: the request and response bodies of /v1/sources (interface §13). */
import { z } from '@hono/zod-openapi'
import { envelope } from './responses.js'

const codeHash = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .openapi({ example: '0x5c1f0b5a0e7d3c3e9c4f8b1d2a6e7f9081726354aabbccddeeff001122334455' })

export const registerSourcesRequest = z
  .strictObject({
    buildInfo: z.record(z.string(), z.unknown()).openapi({
      description:
        "a build-info as the project has it: Foundry's out/build-info/*.json, Hardhat's artifacts/build-info/*.json, " +
        'or a solc standard-JSON pair { input, output } (sources, ASTs, bytecode and source maps selected)',
    }),
  })
  .openapi('RegisterSourcesRequest', { example: { buildInfo: { input: { language: 'Solidity', sources: {} }, output: { sources: {}, contracts: {} } } } })

export const registeredContract = z
  .object({
    name: z.string().openapi({ example: 'Vault' }),
    file: z.string().openapi({ example: 'src/Vault.sol' }),
    runtimeCodeHash: codeHash.openapi({ description: 'keccak-256 of the runtime code with its metadata, immutables and library links blanked' }),
    creationCodeHash: codeHash.openapi({ description: 'the same over the creation code' }),
  })
  .openapi('RegisteredContract')

export const registeredSourcesEnvelope = envelope(z.object({ contracts: z.array(registeredContract) }))
