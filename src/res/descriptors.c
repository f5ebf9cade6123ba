/* Shaders, bind group layouts, pipeline layouts, compute pipelines, bind
 * groups and query sets: objects that hold no contents, only references.
 * Each is made again from its native descriptor (obj.h), the ids in it
 * resolved to the natives of the current device. */
#include "res/obj.h"
#include <sys/mman.h>

ul_status ul__shader_create_native(ul_device *d, ul__obj *o) {
  WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {o->u.sh.wgsl, o->u.sh.wgsl_len}};
  WGPUShaderModuleDescriptor sd = {(WGPUChainedStruct *)&src, ul__sv(o->label)};
  o->native = d->wgpu->DeviceCreateShaderModule(d->device, &sd);
  return UL_OK;
}

ul_status ul__bgl_create_native(ul_device *d, ul__obj *o) {
  const ul__bgl_data *b = &o->u.bgl;
  WGPUBindGroupLayoutDescriptor ld = {NULL, ul__sv(o->label), b->count, b->entries};
  o->native = d->wgpu->DeviceCreateBindGroupLayout(d->device, &ld);
  return UL_OK;
}

ul_status ul__pipeline_bgl_create_native(ul_device *d, ul__obj *o) {
  ul__obj *p;
  ul_status s = ul__obj_get(d, o->u.pbgl.pipeline, UL__OBJ_PIPELINE, "bind group layout of a pipeline", &p);
  if (s) return s;
  o->native = d->wgpu->ComputePipelineGetBindGroupLayout(p->native, o->u.pbgl.group);
  return UL_OK;
}

ul_status ul__layout_get(ul_device *d, uint32_t id, const char *what, ul__obj **out) {
  ul__obj *o = ul__obj_find(d, id, UL__OBJ_PIPELINE_BGL);
  if (o && (!o->destroyed || d->res->rebuilding || d->res->realizing)) {
    ul_status s = ul__obj_realize(d, o);
    *out = s ? NULL : o;
    return s;
  }
  return ul__obj_get(d, id, UL__OBJ_BGL, what, out);
}

ul_status ul__playout_create_native(ul_device *d, ul__obj *o) {
  const ul__playout_data *pd = &o->u.pl;
  WGPUBindGroupLayout stack[8], *ls = pd->count <= 8 ? stack : malloc(sizeof *ls * pd->count);
  if (!ls) return ul__fail(UL_ERR_OUT_OF_MEMORY, "pipeline layout: out of host memory");
  ul_status s = UL_OK;
  for (uint32_t i = 0; i < pd->count && !s; i++) {
    ul__obj *g;
    ls[i] = NULL;
    if (pd->groups[i] && !(s = ul__layout_get(d, pd->groups[i], "pipeline layout", &g))) ls[i] = g->native;
  }
  if (!s) {
    WGPUPipelineLayoutDescriptor ld = {NULL, ul__sv(o->label), pd->count, ls, pd->immediate_size};
    o->native = d->wgpu->DeviceCreatePipelineLayout(d->device, &ld);
  }
  if (ls != stack) free(ls);
  return s;
}

ul_status ul__pipeline_create_native(ul_device *d, ul__obj *o) {
  const ul__pipeline_data *p = &o->u.pipe;
  ul__obj *sh, *lay = NULL;
  ul_status s = ul__obj_get(d, p->shader, UL__OBJ_SHADER, "compute pipeline", &sh);
  if (s) return s;
  if (p->layout && (s = ul__obj_get(d, p->layout, UL__OBJ_PLAYOUT, "compute pipeline", &lay))) return s;
  WGPUConstantEntry stack[8], *c = p->constant_count <= 8 ? stack : calloc(p->constant_count, sizeof *c);
  if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "compute pipeline: out of host memory");
  memset(stack, 0, sizeof stack);
  for (uint32_t i = 0; i < p->constant_count; i++) {
    c[i].key = (WGPUStringView){p->constant_keys[i], p->constant_key_lens[i]};
    c[i].value = p->constant_values[i];
  }
  WGPUComputePipelineDescriptor cd = {0};
  cd.label = ul__sv(o->label);
  cd.layout = lay ? lay->native : NULL;
  cd.compute.module = sh->native;
  cd.compute.entryPoint = p->entry ? (WGPUStringView){p->entry, p->entry_len} : ul__sv(NULL);
  cd.compute.constantCount = p->constant_count;
  cd.compute.constants = p->constant_count ? c : NULL;
  o->native = d->wgpu->DeviceCreateComputePipeline(d->device, &cd);
  if (c != stack) free(c);
  return UL_OK;
}

/* The native layout a bind group is made against. *release is set when the
 * caller must release it (a pipeline's derived layout). */
static ul_status bind_group_layout_of(ul_device *d, const ul__bind_group_data *bd, WGPUBindGroupLayout *out,
                                      bool *release) {
  *release = false;
  ul__obj *x;
  ul_status s;
  if (bd->layout) {
    if ((s = ul__layout_get(d, bd->layout, "bind group layout", &x))) return s;
    *out = x->native;
    return UL_OK;
  }
  if ((s = ul__obj_get(d, bd->pipeline, UL__OBJ_PIPELINE, "bind group pipeline", &x))) return s;
  *out = d->wgpu->ComputePipelineGetBindGroupLayout(x->native, bd->group);
  *release = true;
  return *out ? UL_OK : ul__fail(UL_ERR_VALIDATION, "pipeline has no bind group %u", bd->group);
}

ul_status ul__bind_group_create_native(ul_device *d, ul__obj *o) {
  const ul__bind_group_data *bd = &o->u.bg;
  WGPUBindGroupEntry stack[16], *e = bd->count <= 16 ? stack : calloc(bd->count, sizeof *e);
  if (!e) return ul__fail(UL_ERR_OUT_OF_MEMORY, "bind group: out of host memory");
  memset(stack, 0, sizeof stack);
  ul_status s = UL_OK;
  for (uint32_t i = 0; i < bd->count && !s; i++) {
    const ul__bg_entry *x = &bd->entries[i];
    ul__obj *r;
    e[i].binding = x->binding;
    if (x->buffer) {
      if (!(s = ul__obj_get(d, x->buffer, UL__OBJ_BUFFER, "bind group entry", &r))) e[i].buffer = r->native;
      e[i].offset = x->offset;
      e[i].size = x->size;
    } else if (x->view) {
      if (!(s = ul__obj_get(d, x->view, UL__OBJ_VIEW, "bind group entry", &r))) e[i].textureView = r->native;
    } else if (x->sampler) {
      if (!(s = ul__obj_get(d, x->sampler, UL__OBJ_SAMPLER, "bind group entry", &r))) e[i].sampler = r->native;
    }
  }
  WGPUBindGroupLayout layout = NULL;
  bool release = false;
  if (!s) s = bind_group_layout_of(d, bd, &layout, &release);
  if (!s) {
    WGPUBindGroupDescriptor gd = {NULL, ul__sv(o->label), layout, bd->count, e};
    o->native = d->wgpu->DeviceCreateBindGroup(d->device, &gd);
  }
  if (release) d->wgpu->BindGroupLayoutRelease(layout);
  if (e != stack) free(e);
  return s;
}

ul_status ul__query_set_create_native(ul_device *d, ul__obj *o) {
  WGPUQuerySetDescriptor qd = {NULL, ul__sv(o->label), o->u.qs.type, o->u.qs.count};
  o->native = d->wgpu->DeviceCreateQuerySet(d->device, &qd);
  return UL_OK;
}

void ul__obj_free_data(ul__obj *o) {
  switch (o->kind) {
  case UL__OBJ_SHADER:
    free(o->u.sh.wgsl);
    free(o->u.sh.writes);
    break;
  case UL__OBJ_BGL: free(o->u.bgl.entries); break;
  case UL__OBJ_PLAYOUT: free(o->u.pl.groups); break;
  case UL__OBJ_PIPELINE:
    free(o->u.pipe.entry);
    for (uint32_t i = 0; o->u.pipe.constant_keys && i < o->u.pipe.constant_count; i++)
      free(o->u.pipe.constant_keys[i]);
    free(o->u.pipe.constant_keys);
    free(o->u.pipe.constant_key_lens);
    free(o->u.pipe.constant_values);
    break;
  case UL__OBJ_BIND_GROUP: free(o->u.bg.entries); break;
  case UL__OBJ_BUFFER:
    ul__buffer_map_forget(o);
    ul__prov_clear(&o->u.buf.prov);
    ul__prov_clear(&o->u.buf.prov_ckpt);
    free(o->u.buf.source_path);
    if (o->u.buf.source_map) munmap(o->u.buf.source_map, o->u.buf.source_map_len);
    free(o->u.buf.shadow);
    free(o->u.buf.checkpoint);
    free(o->u.buf.read_copy);
    break;
  case UL__OBJ_TEXTURE:
    free((void *)o->u.tex.nd.viewFormats);
    free(o->u.tex.shadow);
    free(o->u.tex.checkpoint);
    break;
  default: break;
  }
}
