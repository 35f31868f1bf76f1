import type { Command } from 'commander';

export interface CommandDescription {
  readonly name: string;
  readonly commands: readonly CommandDescription[];
  readonly [key: string]: unknown;
}
export declare function describeCommand(command: Command): CommandDescription;
export declare function restoreCommand(description: CommandDescription): Command;
export declare function helpTarget(root: Command, argv: readonly string[]): Command | undefined;
