/* cli_llm.h - the commands' words for LLM and training profiles
 * (cli_llm.c): communication share, steps and ranges, shapes. */
#ifndef KS_CLI_LLM_H
#define KS_CLI_LLM_H

#include "cli.h"

/* Names that key name+shape splits (several (grid, block) shapes; without
 * them, clearly separate duration modes): how many, and their launches;
 * false when none. */
bool cli_shapes_count(const ks_profile *p, size_t *names, size_t *launches);
/* The default key of a command that plans: name+shape where the method's
 * default is name and some name has several shapes (pa->key_given set), so
 * each shape gets its own strata; nothing when --key was given. */
void cli_note_shapes(const ks_profile *p, const ks_params *pa);
/* info's lines on those names (json: the field ", \"shapes\": {...}"). */
void cli_print_shapes(const ks_profile *p, bool json);
/* info's lines on communication kernels (planning: say what sample does). */
void cli_print_comm(const ks_comm_summary *c, bool planning);
/* info's steps, ranges and CUDA graphs (json: as fields ", \"steps\": ..."). */
void cli_print_regions(const ks_profile *p, bool json);

#endif
