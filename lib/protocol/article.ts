/** A word after its indefinite article, by its first letter: "a viewer", "an editor", "an admin", "an alertmanager". */
export const withArticle = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
