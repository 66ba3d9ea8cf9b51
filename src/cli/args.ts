/**
 * @module cli/args
 * The command line of the wrapping subcommands (`observe`, `acp`): `[options] [--] command…`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>

type OptionValues<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O }>
>['values']

/** The streams a subcommand writes its usage to. */
export interface UsageIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
}

/**
 * Reads the options before a wrapped command: they end at `--` or at the first word that is not
 * an option, so `observe codex exec --json …` keeps the command's own flags. `--help` prints the
 * usage; a bad option prints it to stderr.
 * @param argv - the words after the subcommand
 * @param options - the subcommand's options (`parseArgs` config)
 * @param usage - the subcommand's usage text
 * @param io - where usage goes
 * @returns the option values and the command, or the exit code when there is nothing to run
 */
export function optionsAndCommand<O extends ParseArgsOptionsConfig>(
  argv: string[],
  options: O,
  usage: string,
  io: UsageIo
): { values: OptionValues<O>; command: string[] } | number {
  const optionWords: string[] = []
  let command: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]
    if (word === '--' || !word.startsWith('-')) {
      command = argv.slice(word === '--' ? i + 1 : i)
      break
    }
    optionWords.push(word)
    const name = word.slice(2)
    if (options[name]?.type === 'string' && i + 1 < argv.length) optionWords.push(argv[++i])
  }
  let values: OptionValues<O>
  try {
    values = parseArgs({ args: optionWords, options }).values
  } catch (error) {
    io.stderr.write(`agent-todos: ${(error as Error).message}\n\n${usage}`)
    return 2
  }
  if ((values as { help?: boolean }).help) {
    io.stdout.write(usage)
    return 0
  }
  return { values, command }
}
