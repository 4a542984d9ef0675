import { Option, type OptionMetadata } from 'nest-commander';

/**
 * One option of a command: nest-commander's metadata and how its value is read. Without `parse`
 * the value is taken as given; a flag without a value (`--public`) reads as true. `parse` gets
 * the option's previous value too, for an option that may be repeated.
 */
export interface CommandOption extends OptionMetadata {
  parse?: (value: string, previous: never) => unknown;
}

const asGiven = (value: string): string => value;
const present = (): boolean => true;

/**
 * A command's options as data, in the order its help lists them. nest-commander reads an option
 * from a method carrying `@Option`: this adds one such method per option to the class. A subclass's
 * options are listed before those of the class it extends; one that repeats an option (same flags)
 * replaces it, and so lists it where the subclass lists it.
 */
export function Options(...options: CommandOption[]): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as object;
    for (const { parse, ...meta } of options) {
      const read = parse ?? (meta.flags.includes('<') ? asGiven : present);
      // A function of its own per option: nest-commander keeps the metadata on the function.
      const descriptor: PropertyDescriptor = {
        value: (value: string, previous: never) => read(value, previous),
        configurable: true,
        writable: true,
      };
      Object.defineProperty(prototype, meta.flags, descriptor);
      Option(meta)(prototype, meta.flags, descriptor);
    }
  };
}
