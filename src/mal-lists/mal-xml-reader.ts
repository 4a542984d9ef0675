import { SaxesParser } from 'saxes';
import { article, MediaType } from '../media-types/media-type';
import { MAL_LIST_TYPES, malFormatOf } from './mal-format';

/** The file is not a MyAnimeList export this service reads: a 400 naming why. */
export class MalFileError extends Error {}

/** One `<anime>` or `<manga>` element: the text of each child element, by name. */
export interface MalElement {
  values: Map<string, string>;
}

export interface MalFile {
  /** The list type `user_export_type` names. */
  mediaType: MediaType;
  elements: MalElement[];
}

const ENTRY_ELEMENTS = new Map<string, MediaType>(
  MAL_LIST_TYPES.map(({ mediaType, format }) => [format.entryElement, mediaType]),
);

/**
 * Reads a MyAnimeList export from text chunks as they arrive. saxes is a non-validating parser
 * without DTD support: it never expands an entity other than the five of XML or loads anything
 * external, so a document type declaration is refused here outright (contract §13) and an
 * undeclared entity reference is a well-formedness error. Either way, no input makes it grow.
 */
export async function readMalFile(
  chunks: AsyncIterable<string>,
  expected: MediaType,
): Promise<MalFile> {
  const parser = new SaxesParser({ position: true });
  let failure: MalFileError | undefined;
  const fail = (line: number, message: string): never => {
    failure ??= new MalFileError(`line ${line}: ${message}`);
    throw failure;
  };
  parser.on('error', (error) =>
    fail(parser.line, error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')),
  );
  parser.on('doctype', (doctype) => {
    // Reported when the declaration ends: its start is as many lines up as it spans.
    const spanned = doctype.split('\n').length - 1;
    fail(parser.line - spanned, 'a document type declaration (DTD) is not allowed');
  });

  let depth = 0;
  let myinfo: Map<string, string> | undefined;
  let exportType: MediaType | undefined;
  let current: Map<string, string> | undefined;
  let field: string | undefined;
  let text = '';
  const elements: MalElement[] = [];

  parser.on('opentag', (tag) => {
    depth += 1;
    if (depth === 1 && tag.name !== 'myanimelist') {
      fail(parser.line, `the root element is <${tag.name}>, not <myanimelist>`);
    }
    if (depth === 2) {
      if (tag.name === 'myinfo') current = myinfo = new Map();
      else if (ENTRY_ELEMENTS.has(tag.name)) {
        if (!exportType) fail(parser.line, `<${tag.name}> comes before <myinfo>`);
        if (ENTRY_ELEMENTS.get(tag.name) !== exportType) {
          fail(
            parser.line,
            `<${tag.name}> in ${article(exportType!)} ${exportType} list (user_export_type ${malFormatOf(exportType!).exportType})`,
          );
        }
        current = new Map();
      }
    }
    if (depth === 3 && current) {
      field = tag.name;
      text = '';
    }
  });
  parser.on('text', (value) => {
    if (field) text += value;
  });
  parser.on('cdata', (value) => {
    if (field) text += value;
  });
  parser.on('closetag', (tag) => {
    if (depth === 3 && current && field) {
      current.set(field, text);
      field = undefined;
    }
    if (depth === 2 && current) {
      if (current === myinfo) {
        exportType = exportTypeOf(myinfo, parser.line, fail);
        if (exportType !== expected) {
          fail(
            parser.line,
            `the file is ${article(exportType)} ${exportType} list (user_export_type ${malFormatOf(exportType).exportType}); this endpoint imports ${expected}`,
          );
        }
      } else elements.push({ values: current });
      current = undefined;
    }
    depth -= 1;
    void tag;
  });

  for await (const chunk of chunks) parser.write(chunk);
  parser.close();
  if (!exportType) throw new MalFileError('the file has no <myinfo> element');
  return { mediaType: exportType, elements };
}

function exportTypeOf(
  myinfo: Map<string, string>,
  line: number,
  fail: (line: number, message: string) => never,
): MediaType {
  const value = myinfo.get('user_export_type')?.trim();
  const listType = MAL_LIST_TYPES.find(({ format }) => value === String(format.exportType));
  if (listType) return listType.mediaType;
  const choices = MAL_LIST_TYPES.map(
    ({ mediaType, format }) => `${format.exportType} (${mediaType})`,
  );
  return fail(
    line,
    value === undefined
      ? '<myinfo> has no <user_export_type>'
      : `user_export_type must be ${choices.join(' or ')}, not "${value}"`,
  );
}
