/* One stub per FFmpeg function loopprep calls (ffmpeg_symbols.def), so that FFmpeg is loaded when it is
   first needed, not at every start: `analyze` of an MP4 reads the index itself and never loads it. A stub jumps
   through its slot in lp_ffmpeg_table; an empty slot goes to lp_ffmpeg_lazy, which keeps every argument
   register, asks loader.c for the function (loading FFmpeg the first time), fills the slot and jumps there.
   The stubs are hidden: FFmpeg's own libraries, once loaded, bind to each other, never to these. */

#if defined(__linux__)
#if defined(__x86_64__)

        .macro LP_STUB name, index
        .text
        .globl \name
        .hidden \name
        .type \name, @function
        .p2align 4
\name:
        .cfi_startproc
        movq lp_ffmpeg_table+8*\index(%rip), %r11
        testq %r11, %r11
        jz 1f
        jmp *%r11
1:      movl $\index, %r11d
        jmp lp_ffmpeg_lazy
        .cfi_endproc
        .size \name, .-\name
        .endm

        .text
        .p2align 4
        .type lp_ffmpeg_lazy, @function
lp_ffmpeg_lazy:
        /* Entered by a jump from a stub: the stack is as the caller left it (rsp = 8 mod 16). Keep the six
           integer argument registers, rax (a variadic call's vector count) and xmm0-7. The CFI directives let a
           debugger or Swift's backtracer unwind through here (a crash while FFmpeg loads). */
        .cfi_startproc
        pushq %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq %rdi
        pushq %rsi
        pushq %rdx
        pushq %rcx
        pushq %r8
        pushq %r9
        pushq %rax
        subq $136, %rsp
        movdqu %xmm0, 0(%rsp)
        movdqu %xmm1, 16(%rsp)
        movdqu %xmm2, 32(%rsp)
        movdqu %xmm3, 48(%rsp)
        movdqu %xmm4, 64(%rsp)
        movdqu %xmm5, 80(%rsp)
        movdqu %xmm6, 96(%rsp)
        movdqu %xmm7, 112(%rsp)
        movl %r11d, %edi
        call lp_ffmpeg_resolve
        movq %rax, %r11
        movdqu 0(%rsp), %xmm0
        movdqu 16(%rsp), %xmm1
        movdqu 32(%rsp), %xmm2
        movdqu 48(%rsp), %xmm3
        movdqu 64(%rsp), %xmm4
        movdqu 80(%rsp), %xmm5
        movdqu 96(%rsp), %xmm6
        movdqu 112(%rsp), %xmm7
        addq $136, %rsp
        popq %rax
        popq %r9
        popq %r8
        popq %rcx
        popq %rdx
        popq %rsi
        popq %rdi
        popq %rbp
        .cfi_def_cfa %rsp, 8
        .cfi_restore %rbp
        jmp *%r11
        .cfi_endproc
        .size lp_ffmpeg_lazy, .-lp_ffmpeg_lazy

#elif defined(__aarch64__)

        .macro LP_STUB name, index
        .text
        .globl \name
        .hidden \name
        .type \name, %function
        .p2align 4
\name:
        .cfi_startproc
        adrp x16, lp_ffmpeg_table+8*\index
        ldr x16, [x16, #:lo12:lp_ffmpeg_table+8*\index]
        cbz x16, 1f
        br x16
1:      mov x17, #\index
        b lp_ffmpeg_lazy
        .cfi_endproc
        .size \name, .-\name
        .endm

        .text
        .p2align 4
        .type lp_ffmpeg_lazy, %function
lp_ffmpeg_lazy:
        /* Keep x0-x7, x8 (the indirect result register) and q0-q7. */
        .cfi_startproc
        stp x29, x30, [sp, #-224]!
        .cfi_def_cfa_offset 224
        .cfi_offset x29, -224
        .cfi_offset x30, -216
        mov x29, sp
        .cfi_def_cfa x29, 224
        stp x0, x1, [sp, #16]
        stp x2, x3, [sp, #32]
        stp x4, x5, [sp, #48]
        stp x6, x7, [sp, #64]
        str x8, [sp, #80]
        stp q0, q1, [sp, #96]
        stp q2, q3, [sp, #128]
        stp q4, q5, [sp, #160]
        stp q6, q7, [sp, #192]
        mov w0, w17
        bl lp_ffmpeg_resolve
        mov x16, x0
        ldp q6, q7, [sp, #192]
        ldp q4, q5, [sp, #160]
        ldp q2, q3, [sp, #128]
        ldp q0, q1, [sp, #96]
        ldr x8, [sp, #80]
        ldp x6, x7, [sp, #64]
        ldp x4, x5, [sp, #48]
        ldp x2, x3, [sp, #32]
        ldp x0, x1, [sp, #16]
        ldp x29, x30, [sp], #224
        .cfi_def_cfa sp, 0
        .cfi_restore x29
        .cfi_restore x30
        br x16
        .cfi_endproc
        .size lp_ffmpeg_lazy, .-lp_ffmpeg_lazy

#else
#error "loopprep loads FFmpeg on demand through stubs written for x86_64 and aarch64 only"
#endif

#define LP_FFMPEG(library, name) LP_STUB name, __COUNTER__
#include "ffmpeg_symbols.def"

        .section .note.GNU-stack,"",%progbits

#endif /* __linux__: a Mac links FFmpeg (Package.swift) and builds no stub */
