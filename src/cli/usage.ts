/**
 * How the command fails: a `CliError` is bad input or an unreachable node, told in one line on
 * stderr with exit code 2; anything else is a failure of the command itself, also one line (no
 * stack: a stack may hold an RPC URL with its key), exit code 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

export class CliError extends Error {
  override readonly name = 'CliError'
}

/** the exit code of bad input and of an unreachable node */
export const EXIT_BAD_INPUT = 2

export function exitWith(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(`evm-sim: ${message.split('\n')[0]}\n`)
  process.exit(EXIT_BAD_INPUT)
}

type Options = NonNullable<ParseArgsConfig['options']>

/** the command's flags, strictly: an unknown flag or a missing value is a CliError naming it */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true })
  } catch (e) {
    throw new CliError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''))
  }
}

/** a flag's value as a whole number in [min, max] */
export function intFlag(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > max) throw new CliError(`--${name}: a whole number from ${min} to ${max} expected, got '${value}'`)
  return n
}
