/**
 * The knowledge skill: ranked search over the `knowledge/*.md` files that skills ship
 * (domain rules and causes), so answers can explain why, not only how much.
 */
import { defineSkill } from '../../src/skills/api.ts';
import { questions } from './questions.ts';
import { searchKnowledge } from './searchKnowledge.ts';

export default defineSkill({ tools: [searchKnowledge], questions });
