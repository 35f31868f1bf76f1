// `wapii --help` without loading the engine. The build writes what commander needs to print
// help (commands, arguments, options) as JSON beside the built CLI (out/cli/help.json, taken
// from the real program); printing help then loads commander alone, not node-llama-cpp, the
// providers' SDKs or the sandbox, the way oclif's manifest answers help without its commands.
import { Argument, Command, Option } from 'commander';

function describeArgument(a) {
  return {
    name: a.name(),
    description: a.description,
    required: a.required,
    variadic: a.variadic,
    defaultValue: a.defaultValue,
    defaultValueDescription: a.defaultValueDescription,
    choices: a.argChoices,
  };
}

function describeOption(o) {
  return {
    flags: o.flags,
    description: o.description,
    defaultValue: o.defaultValue,
    defaultValueDescription: o.defaultValueDescription,
    choices: o.argChoices,
    preset: o.presetArg,
    env: o.envVar,
    mandatory: o.mandatory,
    hidden: o.hidden,
  };
}

/** What commander prints as help for `command` and every command below it, as plain data. */
export function describeCommand(command) {
  return {
    name: command.name(),
    description: command.description(),
    summary: command.summary(),
    aliases: command.aliases(),
    usage: command.usage(),
    // A command with an action gets no implicit `help` subcommand: commander decides by it.
    hasAction: typeof command._actionHandler === 'function',
    hidden: command._hidden === true,
    arguments: command.registeredArguments.map(describeArgument),
    options: command.options.map(describeOption),
    commands: command.commands.map(describeCommand),
  };
}

function restoreArgument(d) {
  const dots = d.variadic ? '...' : '';
  const argument = new Argument(d.required ? `<${d.name}${dots}>` : `[${d.name}${dots}]`, d.description);
  if (d.defaultValue !== undefined) argument.default(d.defaultValue, d.defaultValueDescription);
  if (d.choices) argument.choices(d.choices);
  return argument;
}

function restoreOption(d) {
  const option = new Option(d.flags, d.description);
  if (d.defaultValue !== undefined) option.default(d.defaultValue, d.defaultValueDescription);
  if (d.choices) option.choices(d.choices);
  if (d.preset !== undefined) option.preset(d.preset);
  if (d.env !== undefined) option.env(d.env);
  if (d.mandatory) option.makeOptionMandatory();
  if (d.hidden) option.hideHelp();
  return option;
}

/** A commander tree that prints the same help as the one `describeCommand` read; it runs nothing. */
export function restoreCommand(d) {
  const command = new Command(d.name).description(d.description).usage(d.usage);
  if (d.summary) command.summary(d.summary);
  if (d.aliases.length > 0) command.aliases(d.aliases);
  for (const a of d.arguments) command.addArgument(restoreArgument(a));
  for (const o of d.options) command.addOption(restoreOption(o));
  for (const c of d.commands) command.addCommand(restoreCommand(c), c.hidden ? { hidden: true } : {});
  if (d.hasAction) command.action(() => undefined);
  return command;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/**
 * The command whose help `argv` asks for and nothing else (`--help`, `run --help`,
 * `constraints check -h`, `help`, `help run`), or undefined: then the real CLI answers, which
 * covers every other form commander accepts.
 */
export function helpTarget(root, argv) {
  let path;
  if (argv[0] === 'help' && argv.length <= 2) path = argv.slice(1);
  else if (argv.length > 0 && HELP_FLAGS.has(argv[argv.length - 1])) path = argv.slice(0, -1);
  else return undefined;
  let command = root;
  for (const name of path) {
    command = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!command) return undefined;
  }
  return command;
}
