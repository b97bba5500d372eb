// expo-secure-store over a JSON file (MOBILE_STORE), so an install keeps its key across runs.
import fs from 'node:fs'
const file = process.env.MOBILE_STORE
const load = () => { try { return JSON.parse(fs.readFileSync(file, 'utf8')) } catch { return {} } }
export async function getItemAsync(k) { return load()[k] ?? null }
export async function setItemAsync(k, v) { const s = load(); s[k] = v; fs.writeFileSync(file, JSON.stringify(s)) }
export async function deleteItemAsync(k) { const s = load(); delete s[k]; fs.writeFileSync(file, JSON.stringify(s)) }
