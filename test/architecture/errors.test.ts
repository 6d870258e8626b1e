/**
 * One error hierarchy: every error class in src/ extends AnalystError (src/errors), directly or
 * through a subclass, and has its own static isInstance guard (a Symbol marker, so the check
 * survives two copies of a module, where instanceof does not). Only AnalystError extends Error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';

/** JavaScript's own error classes: extending one of these directly leaves the hierarchy. */
const BUILT_IN = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** Classes whose `extends` names an error (a built-in, or a class named …Error). */
function errorClasses(file: string): { name: string; base: string; guarded: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { name: string; base: string; guarded: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node)) {
      const base = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText(source);
      if (base && /Error$/.test(base)) {
        const guarded = node.members.some((member) => ts.isMethodDeclaration(member) && member.name.getText(source) === 'isInstance' && (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static) !== 0);
        found.push({ name: node.name?.text ?? '(anonymous)', base, guarded });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the error hierarchy of src/', () => {
  const classes = sourceFiles(path.join(projectRoot, 'src')).flatMap((file) =>
    errorClasses(file).map((found) => ({ ...found, file: path.relative(projectRoot, file).split(path.sep).join('/') })),
  );

  it('finds the error classes', () => {
    expect(classes.map((found) => found.name)).toEqual(expect.arrayContaining(['AnalystError', 'ToolError', 'SessionGoneError']));
  });

  it('has only AnalystError extend a built-in error; every other error extends it', () => {
    const outside = classes.filter((found) => BUILT_IN.has(found.base) && !(found.name === 'AnalystError' && found.file === 'src/errors/analystError.ts'));
    expect(outside.map((found) => `${found.file}: ${found.name} extends ${found.base} (extend AnalystError from src/errors)`)).toEqual([]);
  });

  it('gives every error class its own static isInstance guard', () => {
    expect(classes.filter((found) => !found.guarded).map((found) => `${found.file}: ${found.name} has no static isInstance`)).toEqual([]);
  });
});
