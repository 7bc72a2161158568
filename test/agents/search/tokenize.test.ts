import { describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../../src/agents/search/tokenize.js';

describe('tokenize', () => {
  it('splits snake_case, kebab-case, camelCase and PascalCase identifiers', () => {
    expect(tokenize('read_text_file')).toEqual(['read', 'text', 'fil']);
    expect(tokenize('list-allowed-directories')).toEqual(['list', 'allow', 'directory']);
    expect(tokenize('readTextFile')).toEqual(['read', 'text', 'fil']);
    expect(tokenize('getHTTPServer')).toEqual(['get', 'http', 'server']);
  });

  it('splits letters from digits and keeps a mixed word whole as well', () => {
    expect(tokenize('base64')).toEqual(['base64', 'bas', '64']);
    expect(tokenize('k8s pods')).toEqual(['k8s', '8', 'pod']);
    expect(tokenize('utf8Decode')).toEqual(['utf8decode', 'utf', '8', 'decod']);
  });

  it('keeps an acronym plural in one piece', () => {
    expect(tokenize('purge URLs and IDs')).toEqual(['purg', 'url', 'id']);
  });

  it('keeps letters of any script; stems only plain English words', () => {
    expect(tokenize('Lire un fichier café')).toEqual(['lir', 'un', 'fichier', 'café']);
    expect(tokenize('ÜberPrüfung der Dateien')).toEqual(['über', 'prüfung', 'der', 'dateien']);
    expect(tokenize('ファイルを読む readFile')).toEqual(['ファイルを読む', 'read', 'fil']);
  });

  it('lowercases, drops stop words and one-letter words, keeps duplicates in order', () => {
    expect(tokenize('Read THE file, then read it again: a b 7')).toEqual([
      'read',
      'fil',
      'read',
      'again',
      '7',
    ]);
    expect(tokenize('the of and')).toEqual([]);
    expect(tokenize('  ...  ')).toEqual([]);
  });
});

describe('stem', () => {
  it('folds plurals', () => {
    expect(stem('files')).toBe(stem('file'));
    expect(stem('entities')).toBe('entity');
    expect(stem('directories')).toBe('directory');
    expect(stem('matches')).toBe('match');
    expect(stem('processes')).toBe('process');
  });

  it('leaves words ending in -ss, -us and -is alone', () => {
    expect(stem('status')).toBe('status');
    expect(stem('analysis')).toBe('analysis');
    expect(stem('class')).toBe('class');
  });

  it('folds -ed, -ing and silent -e to one stem', () => {
    const forms = ['save', 'saves', 'saved', 'saving'].map(stem);
    expect(new Set(forms).size).toBe(1);
    expect(stem('listed')).toBe('list');
    expect(stem('listing')).toBe('list');
    expect(stem('stopped')).toBe('stop');
    expect(stem('running')).toBe('run');
    expect(stem('copied')).toBe('copy');
  });

  it('does not strip -ing or -ed when too little would be left', () => {
    expect(stem('string')).toBe('string');
    expect(stem('thing')).toBe('thing');
    expect(stem('need')).toBe('need');
    expect(stem('red')).toBe('red');
  });

  it('folds adverbs in -ly after e, l, s or t only', () => {
    expect(stem('recursively')).toBe(stem('recursive'));
    expect(stem('directly')).toBe('direct');
    expect(stem('apply')).toBe('apply');
    expect(stem('family')).toBe('family');
  });

  it('leaves digits and short words as they are', () => {
    expect(stem('64')).toBe('64');
    expect(stem('ids')).toBe('ids');
  });
});
