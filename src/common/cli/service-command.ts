import { Inject, type Type } from '@nestjs/common';
import { CommandRunner, type CommandMetadata, SubCommand } from 'nest-commander';
import { type CommandOption, Options } from './options';
import { printJsonLine, printJsonLines } from './output';

/** A sub-command that asks one service and prints its answer, described as data. */
export interface ServiceCommandSpec<S, O> extends Pick<
  CommandMetadata,
  'name' | 'arguments' | 'description'
> {
  /** The class's name, as Nest's errors and stack traces show it. */
  readonly className: string;
  readonly options?: CommandOption[];
  /**
   * The call: what it returns is printed as one JSON line, or an array as one JSON line per item
   * (a listing). It throws for a refusal, as the command's error.
   */
  readonly run: (service: S, options: O, args: string[]) => Promise<unknown>;
}

/**
 * The class of a sub-command whose whole work is one service call: `@SubCommand` and `@Options`
 * from the spec, the service injected (by `@Inject`, as a built class has no constructor types to
 * reflect), the answer printed as JSON. A command that prints text or needs two services stays a
 * class of its own.
 */
export function serviceCommand<S, O = Record<string, never>>(
  service: abstract new (...args: never[]) => S,
  { className, options = [], run, ...meta }: ServiceCommandSpec<S, O>,
): Type<CommandRunner> {
  class ServiceCommand extends CommandRunner {
    constructor(private readonly service: S) {
      super();
    }

    // Commander always passes the parsed options, as the spec's `run` declares them.
    async run(args: string[], options?: Record<string, unknown>): Promise<void> {
      const answer = await run(this.service, options as O, args);
      if (Array.isArray(answer)) printJsonLines(answer);
      else printJsonLine(answer);
    }
  }
  Object.defineProperty(ServiceCommand, 'name', { value: className });
  Inject(service)(ServiceCommand, undefined, 0);
  Options(...options)(ServiceCommand);
  SubCommand(meta)(ServiceCommand);
  return ServiceCommand;
}

/**
 * A `delete <id>` sub-command: the service's `delete(id)` (it throws when there is nothing to
 * delete), answered by `{"deleted": id}`.
 */
export function deleteCommand<S extends { delete(id: string): Promise<void> }>(
  service: abstract new (...args: never[]) => S,
  spec: Omit<ServiceCommandSpec<S, Record<string, never>>, 'name' | 'run' | 'options'>,
): Type<CommandRunner> {
  return serviceCommand(service, {
    ...spec,
    name: 'delete',
    run: async (target, _options, [id]) => {
      await target.delete(id);
      return { deleted: id };
    },
  });
}
